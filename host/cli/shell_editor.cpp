#include "shell_editor.hpp"

#include "libedit.hpp"
#include "shell_events.hpp"

#include <mcph/text.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <clocale>
#include <cstdio>
#include <cwchar>

namespace mcph::cli {
namespace {

std::atomic<bool> g_interrupt{false};
std::atomic<unsigned> g_interrupt_count{0};  // never cleared: a form on another thread sees each Ctrl-C
std::atomic<int> g_wake_write{-1};  // the self-pipe's write end, for the signal handler

void on_sigint(int) {
    g_interrupt.store(true);
    g_interrupt_count.fetch_add(1);
    const int fd = g_wake_write.load();
    if (fd >= 0) {
        const int saved = errno;
        (void)!::write(fd, "i", 1);
        errno = saved;
    }
}

// Keys the read function hands libedit for what it saw outside the keyboard. Both are control
// characters nobody types in a shell line (^] and ^^); the bindings below override libedit's.
constexpr wchar_t kRedrawKey = 0x1d;  // lines were printed above the prompt: redraw it
constexpr wchar_t kClearKey = 0x1e;   // Ctrl-C at the prompt: clear the line

void write_all(int fd, const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

void drain(int fd) {
    char buffer[256];
    while (::read(fd, buffer, sizeof buffer) > 0) {
    }
}

// A candidate libedit may insert into the line: one that the terminal escaper leaves as it is (no
// control, bidi or invalid bytes: a server's tool name is its text) and no space (one word).
bool insertable(const std::string& word) {
    return !word.empty() && word.find(' ') == std::string::npos && terminal_safe(word, LineBreaks::Escape) == word;
}

}  // namespace

struct LineEditor::Impl {
    EditLine* el = nullptr;
    History* hist = nullptr;
    HistEvent ev{};
    std::filesystem::path history_file;
    Completer completer;
    std::string prompt;
    int wake[2] = {-1, -1};
    std::mbstate_t mb{};
    struct sigaction old_int {};

    static Impl* of(EditLine* el) {
        void* data = nullptr;
        libedit().el_get(el, EL_CLIENTDATA, &data);
        return static_cast<Impl*>(data);
    }

    static char* prompt_of(EditLine* el) { return const_cast<char*>(of(el)->prompt.c_str()); }

    // libedit's character source: the keyboard, the wake-up pipe (lines to print) and Ctrl-C.
    static int read_char(EditLine* el, wchar_t* out) {
        Impl* self = of(el);
        for (;;) {
            pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {self->wake[0], POLLIN, 0}};
            const int n = ::poll(fds, 2, -1);
            if (n < 0 && errno != EINTR) return -1;
            if (g_interrupt.exchange(false)) {
                *out = kClearKey;
                return 1;
            }
            if (n <= 0) continue;
            if (fds[1].revents & POLLIN) {
                drain(self->wake[0]);
                const auto lines = console_take();
                if (lines.empty()) continue;
                std::fflush(stdout);
                std::string text = "\r\033[K";
                for (const auto& line : lines) text += line + "\r\n";
                write_all(STDERR_FILENO, text);
                *out = kRedrawKey;
                return 1;
            }
            if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
                char c = 0;
                const ssize_t r = ::read(STDIN_FILENO, &c, 1);
                if (r == 0) return 0;
                if (r < 0) {
                    if (errno == EINTR) continue;
                    return -1;
                }
                wchar_t wc = 0;
                const std::size_t k = std::mbrtowc(&wc, &c, 1, &self->mb);
                if (k == static_cast<std::size_t>(-2)) continue;  // more bytes of one character follow
                if (k == static_cast<std::size_t>(-1)) {          // not UTF-8 (of the locale): dropped
                    self->mb = std::mbstate_t{};
                    continue;
                }
                *out = wc;
                return 1;
            }
        }
    }

    static unsigned char redraw(EditLine*, int) { return CC_REDISPLAY; }

    static unsigned char clear(EditLine* el, int) {
        const LineInfo* li = libedit().el_line(el);
        libedit().el_cursor(el, static_cast<int>(li->lastchar - li->cursor));
        li = libedit().el_line(el);
        libedit().el_deletestr(el, static_cast<int>(li->lastchar - li->buffer));
        std::fflush(stdout);
        write_all(STDOUT_FILENO, "^C\r\n");
        return CC_REDISPLAY;
    }

    static unsigned char complete(EditLine* el, int) {
        Impl* self = of(el);
        const LineInfo* li = libedit().el_line(el);
        const std::string before(li->buffer, li->cursor);
        const std::size_t space = before.find_last_of(" \t");
        const std::size_t start = space == std::string::npos ? 0 : space + 1;
        const std::string word = before.substr(start);
        const bool first = before.find_first_not_of(" \t") >= start;
        std::vector<std::string> matches;
        for (auto& c : self->completer ? self->completer(first) : std::vector<std::string>{})
            if (insertable(c) && c.rfind(word, 0) == 0) matches.push_back(std::move(c));
        std::sort(matches.begin(), matches.end());
        matches.erase(std::unique(matches.begin(), matches.end()), matches.end());
        if (matches.empty()) return CC_ERROR;
        if (matches.size() == 1) {
            libedit().el_insertstr(el, (matches[0].substr(word.size()) + " ").c_str());
            return CC_REFRESH;
        }
        std::string common = matches[0];
        for (const auto& m : matches) {
            std::size_t i = 0;
            while (i < common.size() && i < m.size() && common[i] == m[i]) ++i;
            common.resize(i);
        }
        if (common.size() > word.size()) {
            libedit().el_insertstr(el, common.substr(word.size()).c_str());
            return CC_REFRESH;
        }
        constexpr std::size_t kShown = 200;  // a server with thousands of tools: the first ones
        std::string list = "\r\n";
        for (std::size_t i = 0; i < matches.size() && i < kShown; ++i) list += terminal_safe(matches[i], LineBreaks::Escape) + "  ";
        if (matches.size() > kShown) list += "(" + std::to_string(matches.size() - kShown) + " more)";
        std::fflush(stdout);
        write_all(STDOUT_FILENO, list + "\r\n");
        return CC_REDISPLAY;
    }

    void load_history() {
        std::error_code ec;
        if (history_file.empty() || !std::filesystem::is_regular_file(history_file, ec)) return;
        if (std::filesystem::file_size(history_file, ec) > kMaxHistoryFileBytes || ec) return;
        libedit().history(hist, &ev, H_LOAD, history_file.c_str());
    }

    void save_history() {
        if (history_file.empty()) return;
        std::error_code ec;
        std::filesystem::create_directories(history_file.parent_path(), ec);
        // Created 0600 before libedit writes it: a history line may hold a tool's arguments.
        const int fd = ::open(history_file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0) return;
        ::fchmod(fd, 0600);
        ::close(fd);
        libedit().history(hist, &ev, H_SAVE, history_file.c_str());
    }
};

LineEditor::LineEditor(std::filesystem::path history_file, Completer completer) : impl_(std::make_unique<Impl>()) {
    std::setlocale(LC_CTYPE, "");  // libedit and mbrtowc read the terminal's encoding
    impl_->history_file = std::move(history_file);
    impl_->completer = std::move(completer);
    if (::pipe2(impl_->wake, O_CLOEXEC | O_NONBLOCK) != 0) impl_->wake[0] = impl_->wake[1] = -1;
    g_wake_write.store(impl_->wake[1]);
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    // SA_RESTART: a Ctrl-C that lands in a write to the terminal must not fail it (EINTR would
    // set the stream's error state and silence every later line), nor a read of a form's answer.
    // poll() is never restarted (signal(7)), and the handler also wakes it through the self-pipe,
    // so the prompt still sees Ctrl-C at once; waits of a running command look at the flag.
    sa.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &sa, &impl_->old_int);

    impl_->hist = libedit().history_init();
    libedit().history(impl_->hist, &impl_->ev, H_SETSIZE, kMaxHistoryEntries);
    libedit().history(impl_->hist, &impl_->ev, H_SETUNIQUE, 1);
    impl_->load_history();

    impl_->el = libedit().el_init("mcph", stdin, stdout, stderr);
    libedit().el_set(impl_->el, EL_CLIENTDATA, impl_.get());
    libedit().el_set(impl_->el, EL_EDITOR, "emacs");
    libedit().el_set(impl_->el, EL_PROMPT, &Impl::prompt_of);
    libedit().el_set(impl_->el, EL_HIST, libedit().history, impl_->hist);
    libedit().el_set(impl_->el, EL_GETCFN, &Impl::read_char);
    // The wide-character call: libedit keeps the name and help pointers as given (static literals),
    // where its narrow wrapper would copy them and never free the copies.
    libedit().el_wset(impl_->el, EL_ADDFN, L"mcph-complete", L"complete a command, server or tool", &Impl::complete);
    libedit().el_wset(impl_->el, EL_ADDFN, L"mcph-redraw", L"redraw after lines printed above", &Impl::redraw);
    libedit().el_wset(impl_->el, EL_ADDFN, L"mcph-clear", L"clear the line (Ctrl-C)", &Impl::clear);
    libedit().el_set(impl_->el, EL_BIND, "^I", "mcph-complete", nullptr);
    libedit().el_set(impl_->el, EL_BIND, "^]", "mcph-redraw", nullptr);
    libedit().el_set(impl_->el, EL_BIND, "^^", "mcph-clear", nullptr);
}

LineEditor::~LineEditor() {
    impl_->save_history();
    libedit().el_end(impl_->el);
    libedit().history_end(impl_->hist);
    ::sigaction(SIGINT, &impl_->old_int, nullptr);
    g_wake_write.store(-1);
    if (impl_->wake[0] >= 0) ::close(impl_->wake[0]);
    if (impl_->wake[1] >= 0) ::close(impl_->wake[1]);
}

std::optional<std::string> LineEditor::read_line(const std::string& prompt) {
    impl_->prompt = prompt;
    g_interrupt.store(false);  // a Ctrl-C that ended a command is not one at this prompt
    console_attach(impl_->wake[1]);
    int count = 0;
    const char* line = libedit().el_gets(impl_->el, &count);
    console_detach();
    if (!line || count <= 0) return std::nullopt;
    std::string text(line, static_cast<std::size_t>(count));
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    if (text.find_first_not_of(" \t") != std::string::npos) libedit().history(impl_->hist, &impl_->ev, H_ENTER, text.c_str());
    return text;
}

bool LineEditor::take_interrupt() { return g_interrupt.exchange(false); }
bool LineEditor::interrupted() { return g_interrupt.load(); }
unsigned LineEditor::interrupt_count() { return g_interrupt_count.load(); }

}  // namespace mcph::cli
