// `mcph inputs list [--json]`, `mcph inputs forget <id> [--file PATH]`,
// `mcph inputs forget --all [--file PATH]`.
//
// No value is ever printed, not even masked, and not for a non-password input either: `password`
// is the file author's choice (API keys are often left without it), a masked form would still
// give the length away, and this listing is what users paste into bug reports. What is shown —
// the file, the id, the description — is the file's text, escaped like any outside text.
#include "inputs_command.hpp"

#include "did_you_mean.hpp"
#include "json_output.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>
#include <mcph/text.hpp>

#include <iostream>

namespace mcph::cli {
namespace {

std::string shown(const std::string& text) { return terminal_safe(text, LineBreaks::Escape); }

// Where an answer belongs, for people: the file, else the origin (an inline --mcp-config).
std::string place_of(const KeptInput& k) { return k.file.empty() ? k.origin : k.file; }

JsonValue kept_input_json(const KeptInput& k, Json::AllocatorType& a) {
    JsonValue v(rapidjson::kObjectType);
    v.AddMember("id", JsonValue(k.id.c_str(), a), a);
    v.AddMember("file", k.file.empty() ? JsonValue(rapidjson::kNullType) : JsonValue(k.file.c_str(), a), a);
    v.AddMember("origin", JsonValue(k.origin.c_str(), a), a);
    v.AddMember("description", JsonValue(k.description.c_str(), a), a);
    v.AddMember("password", k.password, a);
    return v;
}

void print_kept_list(const std::vector<KeptInput>& list, const char* member) {
    Json doc(rapidjson::kArrayType);
    for (const KeptInput& k : list) doc.PushBack(kept_input_json(k, doc.GetAllocator()), doc.GetAllocator());
    print_json_document(doc, member);
}

int list_inputs(Host& host, const Options& o) {
    if (o.all) throw Error(ErrorKind::Usage, "--all is an option of `mcph inputs forget`, not of `inputs list`");
    if (!o.file.empty()) throw Error(ErrorKind::Usage, "--file is an option of `mcph inputs forget`, not of `inputs list`");
    const std::vector<KeptInput> kept = host.kept_inputs();
    if (o.json) {
        print_kept_list(kept, "inputs");
        return 0;
    }
    if (kept.empty()) {
        std::cout << "(no kept input answers)\n";
        return 0;
    }
    std::cout << "Kept input answers (values are never shown; `mcph inputs forget <id>` makes the next command ask again):\n";
    for (const KeptInput& k : kept) {
        std::cout << "  " << shown(k.id) << (k.password ? "  (password)" : "") << "  " << shown(place_of(k)) << "\n";
        if (!k.description.empty()) std::cout << "      " << shown(k.description) << "\n";
    }
    return 0;
}

// No kept answer matched: the ids that are kept, as a did-you-mean, or the files that keep this id
// when --file named another one.
Error unknown_input(Host& host, const std::string& id, const std::string& file) {
    std::vector<std::string> ids;
    std::string kept_for;
    for (const KeptInput& k : host.kept_inputs()) {
        ids.push_back(k.id);
        if (k.id == id) kept_for += (kept_for.empty() ? "" : ", ") + place_of(k);
    }
    std::string message = "no kept answer for input '" + id + "'";
    if (!file.empty()) message += " of " + file;
    message += kept_for.empty() ? did_you_mean(id, ids) : "; it is kept for " + kept_for;
    return Error(ErrorKind::NotFound, message);  // the hint names `mcph inputs list`
}

int forget_inputs(Host& host, const Options& o) {
    const std::size_t ids = o.args.size() - 1;
    if (o.all ? ids != 0 : ids != 1)
        throw Error(ErrorKind::Usage, "usage: mcph inputs forget <id> [--file PATH] | mcph inputs forget --all [--file PATH]");
    const std::string id = o.all ? std::string() : o.args[1];
    std::vector<KeptInput> forgotten;
    if (o.all && o.file.empty()) forgotten = host.forget_inputs({});
    else forgotten = host.forget_inputs(id, o.file);
    if (forgotten.empty() && !o.all) throw unknown_input(host, id, o.file);
    if (o.json) {
        print_kept_list(forgotten, "forgotten");
        return 0;
    }
    if (forgotten.empty()) std::cout << "(no kept input answers)\n";
    for (const KeptInput& k : forgotten)
        std::cout << "forgot the answer to input '" << shown(k.id) << "' of " << shown(place_of(k))
                  << " (the next command asks again)\n";
    return 0;
}

}  // namespace

int cmd_inputs(Host& host, const Options& o) {
    const std::string sub = o.args.empty() ? std::string() : o.args[0];
    if (sub == "list") {
        if (o.args.size() != 1) throw Error(ErrorKind::Usage, "usage: mcph inputs list [--json]");
        return list_inputs(host, o);
    }
    if (sub == "forget") return forget_inputs(host, o);
    throw Error(ErrorKind::Usage, (sub.empty() ? std::string("`mcph inputs` needs a subcommand")
                                               : "unknown subcommand '" + sub + "' of `mcph inputs`" +
                                                     did_you_mean(sub, {"list", "forget"})) +
                                      ": list or forget (see `mcph inputs --help`)");
}

int run_inputs(const Options& o) {
    if (!o.mcp_configs.empty())
        throw Error(ErrorKind::Usage, "`mcph inputs` reads no config file: name the file with `--file PATH` after the "
                                      "subcommand instead of --mcp-config");
    HostOptions ho;
    ho.load_layered_config = false;  // nothing is loaded, so nothing is asked
    ho.use_env_plugin_path = false;
    ho.use_default_plugin_dir = false;
    Host host(std::move(ho));
    return cmd_inputs(host, o);
}

}  // namespace mcph::cli
