#include "schema/uri_reference.hpp"

#include <cctype>

namespace mcph::schema {
namespace {

struct Parts {
    std::string_view scheme, authority, path, query, fragment;
    bool has_scheme = false, has_authority = false, has_query = false, has_fragment = false;
};

Parts split(std::string_view s) {
    Parts p;
    if (auto hash = s.find('#'); hash != std::string_view::npos) {
        p.fragment = s.substr(hash + 1), p.has_fragment = true;
        s = s.substr(0, hash);
    }
    if (auto q = s.find('?'); q != std::string_view::npos) {
        p.query = s.substr(q + 1), p.has_query = true;
        s = s.substr(0, q);
    }
    std::size_t colon = s.find(':');
    if (colon != std::string_view::npos && colon > 0 && std::isalpha(static_cast<unsigned char>(s[0]))) {
        bool scheme_chars = true;
        for (char c : s.substr(0, colon))
            scheme_chars = scheme_chars && (std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.');
        if (scheme_chars) p.scheme = s.substr(0, colon), p.has_scheme = true, s = s.substr(colon + 1);
    }
    if (s.rfind("//", 0) == 0) {
        std::size_t end = s.find('/', 2);
        p.authority = s.substr(2, end == std::string_view::npos ? std::string_view::npos : end - 2);
        p.has_authority = true;
        s = end == std::string_view::npos ? std::string_view() : s.substr(end);
    }
    p.path = s;
    return p;
}

// RFC 3986 5.2.4.
std::string remove_dot_segments(std::string_view in) {
    std::string out;
    while (!in.empty()) {
        if (in.rfind("../", 0) == 0) in.remove_prefix(3);
        else if (in.rfind("./", 0) == 0) in.remove_prefix(2);
        else if (in.rfind("/./", 0) == 0) in.remove_prefix(2);
        else if (in == "/.") in = "/";
        else if (in.rfind("/../", 0) == 0 || in == "/..") {
            in = in.size() == 3 ? std::string_view("/") : in.substr(3);
            auto last = out.rfind('/');
            out.erase(last == std::string::npos ? 0 : last);
        } else if (in == "." || in == "..") in = {};
        else {
            std::size_t next = in.find('/', in[0] == '/' ? 1 : 0);
            out.append(in.substr(0, next));
            in = next == std::string_view::npos ? std::string_view() : in.substr(next);
        }
    }
    return out;
}

std::string merge(const Parts& base, std::string_view path) {
    if (base.has_authority && base.path.empty()) return "/" + std::string(path);
    auto slash = base.path.rfind('/');
    return slash == std::string_view::npos ? std::string(path) : std::string(base.path.substr(0, slash + 1)) + std::string(path);
}

std::string compose(std::string_view scheme, bool has_scheme, std::string_view authority, bool has_authority,
                    std::string_view path, std::string_view query, bool has_query, std::string_view fragment,
                    bool has_fragment) {
    std::string out;
    if (has_scheme) out.append(scheme).push_back(':');
    if (has_authority) out.append("//").append(authority);
    out.append(path);
    if (has_query) out.append("?").append(query);
    if (has_fragment) out.append("#").append(fragment);
    return out;
}

}  // namespace

std::string resolve_uri(std::string_view base_text, std::string_view reference) {
    const Parts r = split(reference);
    const Parts b = split(base_text);
    if (r.has_scheme)
        return compose(r.scheme, true, r.authority, r.has_authority, remove_dot_segments(r.path), r.query, r.has_query,
                       r.fragment, r.has_fragment);
    if (r.has_authority)
        return compose(b.scheme, b.has_scheme, r.authority, true, remove_dot_segments(r.path), r.query, r.has_query,
                       r.fragment, r.has_fragment);
    if (r.path.empty())
        return compose(b.scheme, b.has_scheme, b.authority, b.has_authority, b.path, r.has_query ? r.query : b.query,
                       r.has_query || b.has_query, r.fragment, r.has_fragment);
    std::string path = r.path[0] == '/' ? remove_dot_segments(r.path) : remove_dot_segments(merge(b, r.path));
    return compose(b.scheme, b.has_scheme, b.authority, b.has_authority, path, r.query, r.has_query, r.fragment,
                   r.has_fragment);
}

std::string_view without_fragment(std::string_view uri) { return uri.substr(0, uri.find('#')); }

std::string_view fragment_of(std::string_view uri) {
    auto hash = uri.find('#');
    return hash == std::string_view::npos ? std::string_view() : uri.substr(hash + 1);
}

bool is_network_uri(std::string_view uri) { return split(uri).has_authority; }

}  // namespace mcph::schema
