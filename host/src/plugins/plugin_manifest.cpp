#include "plugins/plugin_manifest.hpp"

#include <mcph/plugin_api.h>

#include <mcph/bounded_json.hpp>

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <memory>

namespace mcph::plugins {
namespace {

constexpr std::size_t kMaxTypes = 16;
constexpr std::size_t kMaxNameBytes = 64;
constexpr unsigned kMaxManifestDepth = 4;  // {"transports": [...]} is 2 deep

// A transport type or auth backend name as a config file spells it.
bool valid_name(const std::string& s) {
    if (s.empty() || s.size() > kMaxNameBytes) return false;
    for (unsigned char c : s)
        if (!(std::isalnum(c) || c == '-' || c == '_' || c == '.')) return false;
    return true;
}

struct FdCloser {
    void operator()(const int* fd) const {
        if (*fd >= 0) ::close(*fd);
    }
};
struct ElfCloser {
    void operator()(Elf* e) const { elf_end(e); }
};

// The bytes of section `name`, or nullopt when there is none; `why` for an unreadable file.
std::optional<std::string> section_bytes(const std::filesystem::path& file, const char* name, std::string& why) {
    if (elf_version(EV_CURRENT) == EV_NONE) {
        why = "libelf is unusable";
        return std::nullopt;
    }
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        why = std::string("cannot open: ") + std::strerror(errno);
        return std::nullopt;
    }
    std::unique_ptr<const int, FdCloser> fd_guard(&fd);
    std::unique_ptr<Elf, ElfCloser> elf(elf_begin(fd, ELF_C_READ, nullptr));
    std::size_t names_index = 0;
    if (!elf || elf_kind(elf.get()) != ELF_K_ELF || elf_getshdrstrndx(elf.get(), &names_index) != 0) {
        why = "not an ELF file";
        return std::nullopt;
    }
    for (Elf_Scn* scn = elf_nextscn(elf.get(), nullptr); scn; scn = elf_nextscn(elf.get(), scn)) {
        GElf_Shdr header;
        if (!gelf_getshdr(scn, &header)) continue;
        const char* section = elf_strptr(elf.get(), names_index, header.sh_name);
        if (!section || std::strcmp(section, name) != 0) continue;
        if (header.sh_size > kMaxManifestBytes) {
            why = "its " + std::string(name) + " section is " + std::to_string(header.sh_size) + " bytes (at most " +
                  std::to_string(kMaxManifestBytes) + ")";
            return std::nullopt;
        }
        Elf_Data* data = elf_getdata(scn, nullptr);
        if (!data || !data->d_buf) return std::string();
        return std::string(static_cast<const char*>(data->d_buf), data->d_size);
    }
    return std::nullopt;
}

}  // namespace

std::optional<PluginManifest> parse_plugin_manifest(const std::string& bytes, std::string& why) {
    // The section holds one NUL-terminated JSON text (a C string literal); trailing NULs are padding.
    const std::string text = bytes.substr(0, bytes.find('\0'));
    rapidjson::Document doc;
    const auto parsed = json_bounds::parse(doc, text, kMaxManifestDepth);
    if (!parsed || !doc.IsObject()) {
        why = "its manifest is not a JSON object" + (parsed ? std::string() : " (" + parsed.message() + ")");
        return std::nullopt;
    }
    if (!doc.HasMember("manifest") || !doc["manifest"].IsUint() || doc["manifest"].GetUint() != 1) {
        why = "its manifest is not version 1 (\"manifest\": 1)";
        return std::nullopt;
    }
    PluginManifest m;
    if (doc.HasMember("transports")) {
        const auto& list = doc["transports"];
        if (!list.IsArray() || list.Size() > kMaxTypes) {
            why = "its manifest's \"transports\" is not an array of at most " + std::to_string(kMaxTypes) + " names";
            return std::nullopt;
        }
        for (const auto& t : list.GetArray()) {
            if (!t.IsString() || !valid_name(std::string(t.GetString(), t.GetStringLength()))) {
                why = "its manifest names a transport type that is not a plain name";
                return std::nullopt;
            }
            m.transport_types.emplace_back(t.GetString(), t.GetStringLength());
        }
    }
    if (doc.HasMember("auth")) {
        const auto& a = doc["auth"];
        if (!a.IsString() || (a.GetStringLength() && !valid_name(a.GetString()))) {
            why = "its manifest's \"auth\" is not a plain name";
            return std::nullopt;
        }
        m.auth_backend = a.GetString();
    }
    if (m.transport_types.empty() && m.auth_backend.empty()) {
        why = "its manifest claims no transport type and no auth backend";
        return std::nullopt;
    }
    return m;
}

std::optional<PluginManifest> read_plugin_manifest(const std::filesystem::path& file, std::string& why) {
    why.clear();
    auto bytes = section_bytes(file, MCPH_MANIFEST_SECTION, why);
    if (!bytes) return std::nullopt;
    return parse_plugin_manifest(*bytes, why);
}

}  // namespace mcph::plugins
