#include "input_prompt.hpp"

#include "console_line.hpp"

#include <mcph/text.hpp>

#include <termios.h>
#include <unistd.h>

#include <iostream>

namespace mcph::cli {
namespace {

// Echo off on the terminal for the lifetime of the object. TCSANOW, not TCSAFLUSH: what the person
// typed ahead must not be thrown away.
class EchoOff {
public:
    EchoOff() {
        if (::tcgetattr(STDIN_FILENO, &saved_) != 0) return;
        termios quiet = saved_;
        quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
        active_ = ::tcsetattr(STDIN_FILENO, TCSANOW, &quiet) == 0;
    }
    ~EchoOff() {
        if (active_) ::tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
    }
    EchoOff(const EchoOff&) = delete;
    EchoOff& operator=(const EchoOff&) = delete;

private:
    termios saved_{};
    bool active_ = false;
};

std::optional<std::string> read_answer(bool secret) {
    if (!secret) return read_console_line();
    EchoOff quiet;
    std::optional<std::string> line = read_console_line();
    std::cerr << "\n";
    return line;
}

// A pickString answer: the choice's number or its exact text.
std::optional<std::string> pick(const InputRequest& request, const std::string& answer) {
    for (std::size_t i = 0; i < request.options.size(); ++i)
        if (answer == std::to_string(i + 1) || answer == request.options[i]) return request.options[i];
    return std::nullopt;
}

}  // namespace

std::optional<std::string> ask_input_on_terminal(const InputRequest& request) {
    // The file (a repository's, possibly) wrote the description and the choices: escape them.
    std::cerr << "\n" << terminal_safe(request.origin, LineBreaks::Escape) << " asks for input '"
              << terminal_safe(request.id, LineBreaks::Escape) << "' (server '"
              << terminal_safe(request.server, LineBreaks::Escape) << "'):\n  "
              << terminal_safe(request.description.empty() ? request.id : request.description) << "\n";
    for (std::size_t i = 0; i < request.options.size(); ++i)
        std::cerr << "  " << (i + 1) << ") " << terminal_safe(request.options[i], LineBreaks::Escape) << "\n";
    const std::string suffix = request.default_value.empty()
                                   ? std::string()
                                   : " [" + (request.password ? std::string("default kept hidden")
                                                              : terminal_safe(request.default_value, LineBreaks::Escape)) +
                                         "]";
    for (int attempt = 0; attempt < 3; ++attempt) {
        std::cerr << (request.password ? "value (not shown)" : "value") << suffix << ": " << std::flush;
        std::optional<std::string> answer = read_answer(request.password);
        if (!answer) return std::nullopt;  // end of input: no answer
        if (answer->empty()) {
            if (request.default_value.empty()) return std::nullopt;
            return request.default_value;
        }
        if (request.options.empty()) return answer;
        if (auto chosen = pick(request, *answer)) return chosen;
        std::cerr << "  not one of the choices: type its number or its text\n";
    }
    return std::nullopt;
}

}  // namespace mcph::cli
