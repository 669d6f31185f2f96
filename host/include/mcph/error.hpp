// mcph::Error — the one exception type the host library throws (and stores in futures).
#pragma once

#include <mcph/export.hpp>

#include <stdexcept>
#include <string>

namespace mcph {

enum class ErrorKind {
    Usage,       // bad arguments or configuration supplied by the caller
    Connection,  // the transport failed or closed (the message carries the detail, e.g. stderr tail)
    Protocol,    // the peer broke the protocol (bad handshake, unsupported version, malformed result)
    Timeout,     // a request exceeded its timeout (a notifications/cancelled was sent)
    Cancelled,   // the caller cancelled the request
    Remote,      // the server answered with a JSON-RPC error (code() has its code)
    Plugin,      // a plugin could not be loaded or refused an operation
    NotFound,    // unknown server, tool, prompt...
};

MCPH_API const char* to_string(ErrorKind kind) noexcept;

// Exported whole, with its destructor out of line as the key function: its vtable and typeinfo
// live once, in libmcph, so a `catch (const mcph::Error&)` in any module matches what the library
// throws.
class MCPH_API Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string& message, int code = 0, std::string data_json = {})
        : std::runtime_error(message), kind_(kind), code_(code), data_json_(std::move(data_json)) {}
    Error(const Error&) = default;
    Error& operator=(const Error&) = default;
    ~Error() override;

    ErrorKind kind() const noexcept { return kind_; }
    int code() const noexcept { return code_; }                       // JSON-RPC error code (Remote)
    const std::string& data_json() const noexcept { return data_json_; }  // JSON-RPC error data, if any
    // The HTTP status the error arrived with (a Streamable HTTP server refusing a request below
    // JSON-RPC, e.g. 400 with an UnsupportedProtocolVersion body); 0 when none.
    int http_status() const noexcept { return http_status_; }
    Error& set_http_status(int status) noexcept {
        http_status_ = status;
        return *this;
    }

private:
    ErrorKind kind_;
    int code_;
    std::string data_json_;
    int http_status_ = 0;
};

}  // namespace mcph
