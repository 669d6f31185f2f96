// headersHelper: a command, run at each connect and reconnect of a remote server, whose stdout is
// a JSON object of headers that override the static `headers` (fresh tokens without storing them
// in config — the credential_process pattern). Its output is never logged.
#pragma once

#include <chrono>
#include <map>
#include <string>

namespace mcph::config {

struct HeadersHelperRequest {
    std::string command;      // run with /bin/sh -c
    std::string server_name;  // exported as MCPH_SERVER_NAME
    std::string server_url;   // exported as MCPH_SERVER_URL
    std::chrono::milliseconds timeout{10000};
};

// Runs the helper. Throws mcph::Error(Connection) naming the server when it fails to start,
// exits non-zero, times out (it is killed), prints too much, or prints anything but a JSON object
// of string values. Messages never contain its output.
std::map<std::string, std::string> run_headers_helper(const HeadersHelperRequest& request);

// Returns `config_json` with its "headers" overridden by the helper's, when it has a
// "headersHelper"; unchanged otherwise.
std::string apply_headers_helper(const std::string& server_name, const std::string& config_json);

}  // namespace mcph::config
