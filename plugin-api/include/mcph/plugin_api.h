/*
 * mcph plugin ABI, version 1.3 — the only contract between the mcph host and its plugins.
 * (1.1 appended: per-message facts for `send_ex`, typed failures, transport traits.
 *  1.2 appended: asynchronous auth hooks that see the HTTP request (method, URL, response
 *  headers: DPoP), MCPH_PENDING, auth `cancel`, and a cross-process lock in the secret store.
 *  1.3 appended: transport `pump` -- a waiting host thread reads its own reply -- and MCPH_BUSY.
 *  A plugin built against 1.0, 1.1 or 1.2 still loads: the host only reads fields inside each
 *  struct_size.)
 *
 * Rules (see docs/plugin-abi.md for the reasoning):
 *  - A plugin exports exactly one symbol, `mcph_plugin_entry`, returning a const descriptor.
 *  - `abi_major` must equal the host's exactly; `abi_minor` grows by appending fields only.
 *    Every struct starts with `uint32_t struct_size`; a reader touches only fields inside it.
 *  - Interfaces are fetched by versioned id: "mcph.transport/1", "mcph.auth/1".
 *  - Strings cross as borrowed UTF-8 views (`mcph_str`), valid for the duration of the call only.
 *    Each side frees only what it allocated; plugin objects are released by their own `destroy`.
 *  - Fallible functions return `mcph_status` and fill an optional caller-owned `mcph_error`.
 *    No C++ exception ever crosses this boundary.
 *  - Every function carries a thread tag:
 *      [thread-safe]        callable from any thread, concurrently;
 *      [host-thread]        called by the host from one thread at a time, never from a plugin callback;
 *      [any plugin thread]  invoked by the plugin from whichever of its threads it likes.
 *  - Callbacks take `void* user_data` first. Configuration reaches a plugin as a JSON string, so new
 *    options never change the ABI.
 *
 * This header is plain C99 and compiles as C++ as well.
 */
#ifndef MCPH_PLUGIN_API_H
#define MCPH_PLUGIN_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MCPH_ABI_MAJOR 1u
#define MCPH_ABI_MINOR 3u

#define MCPH_ENTRY_SYMBOL "mcph_plugin_entry"
#define MCPH_TRANSPORT_INTERFACE_V1 "mcph.transport/1"
#define MCPH_AUTH_INTERFACE_V1 "mcph.auth/1"

#if defined(_WIN32)
#define MCPH_PLUGIN_EXPORT __declspec(dllexport)
#else
#define MCPH_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* Optional: what the plugin serves, readable from the file without loading it, so a host loads the
 * plugin (and the libraries it links) only when a server first needs it. One JSON text in the ELF
 * section ".mcph_manifest", at most 4096 bytes:
 *     MCPH_PLUGIN_MANIFEST("{\"manifest\":1,\"transports\":[\"http\"]}")
 *     MCPH_PLUGIN_MANIFEST("{\"manifest\":1,\"auth\":\"oauth\"}")
 * It must name exactly the transport types (the vtable's config_types) and the auth backend the
 * plugin serves: when loaded, a plugin whose descriptor differs is refused with the difference.
 * Without the section, the host loads the plugin when it discovers it. Hosts before ABI 1.2 ignore it. */
#define MCPH_MANIFEST_SECTION ".mcph_manifest"
#if defined(__GNUC__) && !defined(_WIN32)
#define MCPH_PLUGIN_MANIFEST(JSON) \
    __attribute__((used, section(MCPH_MANIFEST_SECTION))) static const char mcph_plugin_manifest_json_[] = JSON;
#else
#define MCPH_PLUGIN_MANIFEST(JSON)
#endif

/* ---------------------------------------------------------------------------------------------- */
/* Basic types                                                                                    */
/* ---------------------------------------------------------------------------------------------- */

/* A borrowed UTF-8 string view. Not NUL-terminated unless stated. Valid for the call only. */
typedef struct mcph_str {
    const char* ptr;
    size_t len;
} mcph_str;

typedef enum mcph_status {
    MCPH_OK = 0,
    MCPH_ERR_INVALID_ARGUMENT = 1, /* bad config or argument: fix the input, retrying won't help */
    MCPH_ERR_IO = 2,               /* a transport or system call failed */
    MCPH_ERR_CLOSED = 3,           /* the object is closed or closing */
    MCPH_ERR_UNSUPPORTED = 4,      /* the operation or option is not implemented by this plugin */
    MCPH_ERR_TIMEOUT = 5,
    MCPH_ERR_AUTH = 6,             /* authentication/authorization failed or is required */
    MCPH_ERR_NOT_FOUND = 7,        /* e.g. no such secret */
    MCPH_ERR_INTERNAL = 8,         /* a bug or an unexpected exception inside the callee */
    MCPH_ERR_CANCELLED = 9,        /* the user or the application declined (e.g. open_url refused) */
    MCPH_PENDING = 10,             /* [v1.2] not an error: an asynchronous hook answers later through
                                      its completion (only from the *_ex hooks that take one) */
    MCPH_BUSY = 11                 /* [v1.3] not an error: "not now" -- another thread is reading this
                                      transport (only from `pump`); wait for the message another way */
} mcph_status;

#define MCPH_ERROR_MESSAGE_CAPACITY 1024

/* Caller-owned error detail. The callee writes a NUL-terminated message (truncated to fit). */
typedef struct mcph_error {
    uint32_t struct_size; /* set by the caller: sizeof(mcph_error) */
    mcph_status status;
    char message[MCPH_ERROR_MESSAGE_CAPACITY];
} mcph_error;

typedef enum mcph_log_level {
    MCPH_LOG_DEBUG = 0,
    MCPH_LOG_INFO = 1,
    MCPH_LOG_WARN = 2,
    MCPH_LOG_ERROR = 3
} mcph_log_level;

/* Why a transport ended. Delivered once through `on_closed`. */
typedef enum mcph_close_reason {
    MCPH_CLOSE_CLEAN = 0,           /* the peer ended the stream normally (e.g. process exited 0, EOF) */
    MCPH_CLOSE_ERROR = 1,           /* terminal transport error: the detail says what failed */
    MCPH_CLOSE_SESSION_EXPIRED = 2, /* the server forgot our session (HTTP 404 with a session id) */
    MCPH_CLOSE_AUTH_REQUIRED = 3    /* the server demands credentials we could not supply */
} mcph_close_reason;

/* A sink the callee pushes name/value pairs into (e.g. HTTP headers). [same thread as the call] */
typedef struct mcph_header_sink {
    uint32_t struct_size;
    void* user_data;
    void (*add)(void* user_data, mcph_str name, mcph_str value);
} mcph_header_sink;

/* A sink for one string result (the value is copied by the receiver). [same thread as the call] */
typedef struct mcph_string_sink {
    uint32_t struct_size;
    void* user_data;
    void (*set)(void* user_data, mcph_str value);
} mcph_string_sink;

/* [v1.1] What kind of failure a transport met: the host decides on this, never on message text. */
typedef enum mcph_failure_category {
    MCPH_FAILURE_OTHER = 0,           /* none of the below; the message says what */
    MCPH_FAILURE_RESET = 1,           /* an established connection or stream broke (EPIPE, ECONNRESET, EOF mid-message) */
    MCPH_FAILURE_TIMEOUT = 2,         /* no answer within a transport-level deadline */
    MCPH_FAILURE_REFUSED = 3,         /* connection refused, or the process could not be started */
    MCPH_FAILURE_UNREACHABLE = 4,     /* DNS failure, no route, host down */
    MCPH_FAILURE_TLS = 5,             /* certificate or handshake failure */
    MCPH_FAILURE_PROTOCOL = 6,        /* the peer broke the wire protocol (bad framing, wrong content type, bad status) */
    MCPH_FAILURE_SESSION_EXPIRED = 7, /* the server forgot our session (HTTP 404 with a session id) */
    MCPH_FAILURE_AUTH = 8,            /* credentials required or refused (HTTP 401/403 not recovered) */
    MCPH_FAILURE_HTTP_STATUS = 9,     /* the server answered with an HTTP error status; see http_status and body */
    MCPH_FAILURE_PROCESS_EXITED = 10  /* a stdio child exited; os_error holds its exit status or signal */
} mcph_failure_category;

/* [v1.1] A typed failure. Borrowed for the call. */
typedef struct mcph_failure {
    uint32_t struct_size;
    mcph_failure_category category;
    int os_error;            /* errno (or exit status for PROCESS_EXITED); 0 when none */
    int http_status;         /* the HTTP status the server answered with; 0 when none */
    mcph_str message;        /* for people; never parsed by the host */
    mcph_str stderr_tail;    /* stdio: the last lines the child wrote to stderr; may be empty */
    mcph_str body;           /* HTTP: the (bounded) response body of an error status; may be empty */
} mcph_failure;

/* [v1.1] One HTTP-style header the host wants on one message (name and value as given). */
typedef struct mcph_header {
    mcph_str name;
    mcph_str value;
} mcph_header;

/* [v1.1] Flags of mcph_message_facts. */
#define MCPH_MESSAGE_LISTEN_STREAM 1u /* a subscriptions/listen request: its response stream stays open */

/* [v1.1] What the host already knows about one outgoing message, so a plugin never re-parses the
 * JSON to learn it. All views are borrowed for the `send_ex` call. */
typedef struct mcph_message_facts {
    uint32_t struct_size;
    mcph_str id;              /* the JSON-RPC id as JSON text (`7`, `"a"`); empty for notifications and responses */
    mcph_str method;          /* the JSON-RPC method; empty for responses */
    mcph_str name;            /* params.name (tools/call, prompts/get) or params.uri (resources/read); may be empty */
    mcph_str protocol_version;/* the protocol version this message is written in; may be empty before negotiation */
    const mcph_header* params;/* tool parameters to mirror (x-mcp-header): name = the annotation ("Region"),
                                 value = the value converted to text (string as-is, integer decimal,
                                 boolean true/false). The plugin encodes and prefixes as its wire needs. */
    size_t param_count;
    uint32_t flags;           /* MCPH_MESSAGE_* */
} mcph_message_facts;

/* [v1.2] The HTTP request an auth hook is asked about. Borrowed for the call. A DPoP proof
 * (RFC 9449) binds to `method` and `url`; a challenge carries the whole response so a
 * `DPoP-Nonce` header (or anything else the backend needs) is not lost. */
typedef struct mcph_auth_request {
    uint32_t struct_size;
    mcph_str method;                     /* "POST", "GET", "DELETE" */
    mcph_str url;                        /* the request URL as sent */
    int http_status;                     /* challenges: the response status (401, 403, 400...); 0 before sending */
    mcph_str www_authenticate;           /* challenges: every WWW-Authenticate header, joined by ", "; may be empty */
    const mcph_header* response_headers; /* challenges: every header of the response; NULL before sending */
    size_t response_header_count;
} mcph_auth_request;

/* [v1.2] How an asynchronous auth hook answers later. The caller of the hook owns it; the callee
 * copies `user_data` and `complete` (the struct itself is borrowed for the hook call).
 * `complete` runs exactly once per hook call that returned MCPH_PENDING, from any thread; it may
 * run before the hook call has returned (on another thread). For a transport's hooks the host
 * guarantees it never runs after the transport's `close` has returned: a pending answer is
 * completed with MCPH_ERR_CANCELLED, possibly from inside `close`. `headers` (may be NULL) and
 * `err` (may be NULL) are borrowed for the call. */
typedef struct mcph_auth_completion {
    uint32_t struct_size;
    void* user_data;
    void (*complete)(void* user_data, mcph_status status, const mcph_header* headers, size_t header_count,
                     const mcph_error* err);
} mcph_auth_completion;

/* [v1.2] Flags of mcph_auth_vtable_v1.get_headers_ex. */
#define MCPH_AUTH_NONBLOCKING 1u /* no network I/O, no waiting: answer MCPH_PENDING instead */

/* [v1.1] Traits a transport declares about itself (mcph_transport_vtable_v1.traits). */
#define MCPH_TRAIT_SESSION_CAN_EXPIRE 1u /* the server may forget our session; the host may start a fresh one */
#define MCPH_TRAIT_LEGACY_ONLY 2u        /* speaks only the 2024-11-05 generation (HTTP+SSE): never probe a modern era */
#define MCPH_TRAIT_HTTP_HEADERS 4u       /* carries message facts as HTTP headers (Streamable HTTP) */
#define MCPH_TRAIT_PER_REQUEST_CANCEL 8u /* `cancel` ends one request's stream (modern Streamable HTTP) */

/* ---------------------------------------------------------------------------------------------- */
/* Host services: the table the host hands to every plugin (SQLite style).                       */
/* Owned by the host; valid from `init` until `shutdown` returns.                                */
/* ---------------------------------------------------------------------------------------------- */

typedef struct mcph_host_services {
    uint32_t struct_size;
    uint32_t abi_major;
    uint32_t abi_minor;
    void* host_data; /* first argument of every service below */

    /* [thread-safe] Structured log line. `source` names the plugin or server. Never pass secrets. */
    void (*log)(void* host_data, mcph_log_level level, mcph_str source, mcph_str message);

    /* [thread-safe, may block] Secret store (tokens). get: MCPH_ERR_NOT_FOUND when absent. */
    mcph_status (*secret_get)(void* host_data, mcph_str key, const mcph_string_sink* out, mcph_error* err);
    mcph_status (*secret_set)(void* host_data, mcph_str key, mcph_str value, mcph_error* err);
    mcph_status (*secret_delete)(void* host_data, mcph_str key, mcph_error* err);

    /* [thread-safe, may block] Ask the application to open a URL for the user (interactive auth).
     * The application decides: system browser, a headless fetcher, or refusal (MCPH_ERR_CANCELLED). */
    mcph_status (*open_url)(void* host_data, mcph_str url, mcph_error* err);

    /* [thread-safe] Run `fn(user_data)` later on the host's event loop. */
    void (*post)(void* host_data, void (*fn)(void* user_data), void* user_data);

    /* [thread-safe] "Safe fetch" policy for auth discovery: MCPH_OK when `url` may be fetched on
     * behalf of the server at `server_url` (https only except loopback; loopback and private
     * ranges, in any spelling, refused unless the server itself is local). Each redirect hop must
     * be checked again, and so must the address each connection actually goes to: a plugin asks
     * about "scheme://<address>:<port>/" (IPv6 in brackets) before connecting to it, which is how
     * a DNS name that resolves to a private address is refused. */
    mcph_status (*check_fetch_url)(void* host_data, mcph_str url, mcph_str server_url, mcph_error* err);

    /* ---- v1.2 (present when struct_size covers them) ---- */

    /* [thread-safe, may block] An advisory lock on one secret key, shared by every process using
     * the same secret store: the read-modify-write of a rotating refresh token is done under it so
     * two processes never spend the same refresh token. Waits up to `timeout_ms`: MCPH_OK and a
     * `*handle` to pass to secret_unlock, or MCPH_ERR_TIMEOUT. Not reentrant. */
    mcph_status (*secret_lock)(void* host_data, mcph_str key, uint32_t timeout_ms, void** handle, mcph_error* err);
    void (*secret_unlock)(void* host_data, void* handle);
} mcph_host_services;

/* ---------------------------------------------------------------------------------------------- */
/* Transport interface "mcph.transport/1"                                                         */
/* ---------------------------------------------------------------------------------------------- */

typedef struct mcph_transport mcph_transport; /* opaque, owned by the plugin */

/* Host-side callbacks for one transport. Owned by the host; valid until the transport is destroyed. */
typedef struct mcph_transport_callbacks {
    uint32_t struct_size;
    void* user_data;

    /* [any plugin thread] One complete JSON-RPC message (a JSON object or batch array, UTF-8).
     * Borrowed for the call. Calls are serialised per transport (never two at once), in arrival
     * order. The host may call `send` from inside this callback. */
    void (*on_message)(void* user_data, mcph_str message);

    /* [any plugin thread] The transport ended. Fires at most once, after the last on_message;
     * never fires after `close` has returned. `detail` is a human-readable reason (may be empty),
     * e.g. the tail of a child's stderr. */
    void (*on_closed)(void* user_data, mcph_close_reason reason, mcph_str detail);

    /* [any plugin thread] A non-fatal diagnostic (a malformed frame that was skipped, a retry...). */
    void (*on_diagnostic)(void* user_data, mcph_log_level level, mcph_str message);

    /* [any plugin thread, may block] Auth hook for HTTP-family transports: called before each
     * request; the host (through the server's auth plugin) adds headers such as Authorization.
     * A failure aborts that request with the returned status. May be NULL: no auth. */
    mcph_status (*get_request_headers)(void* user_data, const mcph_header_sink* sink, mcph_error* err);

    /* [any plugin thread, may block] The server answered 401 or 403. `www_authenticate` is the raw
     * header (may be empty). MCPH_OK means "credentials were refreshed, retry the request once";
     * anything else means give up (report MCPH_CLOSE_AUTH_REQUIRED or fail the message). May be NULL. */
    mcph_status (*on_auth_challenge)(void* user_data, int http_status, mcph_str www_authenticate,
                                     mcph_str resource_url, mcph_error* err);

    /* ---- v1.1 (present when struct_size covers them) ---- */

    /* [any plugin thread] One request (by its JSON-RPC id as JSON text, as in mcph_message_facts)
     * failed without a JSON-RPC response: an HTTP error status, a broken response stream, a
     * timeout. The host fails or re-issues that request. Replaces synthesizing a JSON-RPC error
     * for it. An HTTP error whose body is a JSON-RPC error response is reported here too, with
     * the body, so the host sees both the status and the server's error. */
    void (*on_request_failed)(void* user_data, mcph_str request_id, const mcph_failure* failure);

    /* [any plugin thread] A typed connection-level problem (not fatal by itself; the host's
     * health monitor decides). Sent alongside on_diagnostic, which stays the human log line. */
    void (*on_failure)(void* user_data, const mcph_failure* failure);

    /* [any plugin thread] The transport ended, typed (called instead of on_closed when present:
     * at most one of the two fires). `reason` as for on_closed. */
    void (*on_closed_ex)(void* user_data, mcph_close_reason reason, const mcph_failure* failure);

    /* ---- v1.2 (present when struct_size covers them; used instead of the 1.0 auth hooks) ---- */

    /* [any plugin thread, never blocks on the network] Headers for `request` (method and URL set,
     * no response yet). MCPH_OK: they were added to `sink` now. MCPH_PENDING: the host needs time
     * (a refresh, a sign-in); the transport parks this one request — nothing else waits — and
     * sends it when `done` completes with MCPH_OK and the headers, or fails it with the status
     * given. Any other status fails the request now. May be NULL. */
    mcph_status (*get_request_headers_ex)(void* user_data, const mcph_auth_request* request,
                                          const mcph_header_sink* sink, const mcph_auth_completion* done,
                                          mcph_error* err);

    /* [any plugin thread, never blocks on the network] The server refused `request` (401 or 403, or
     * another status carrying a WWW-Authenticate challenge such as DPoP use_dpop_nonce). MCPH_OK:
     * retry once now, asking get_request_headers_ex again. MCPH_PENDING: park the request until
     * `done` completes; MCPH_OK then means retry once (its headers are ignored: ask again).
     * Anything else: give up (fail the request, or close with MCPH_CLOSE_AUTH_REQUIRED). May be NULL. */
    mcph_status (*on_auth_challenge_ex)(void* user_data, const mcph_auth_request* request,
                                        const mcph_auth_completion* done, mcph_error* err);
} mcph_transport_callbacks;

typedef struct mcph_transport_vtable_v1 {
    uint32_t struct_size;

    /* Config `type` values this plugin serves, NULL-terminated (e.g. {"stdio", NULL}). Static. */
    const char* const* config_types;

    /* [host-thread] Parse `config_json` (the server's config object, with "type" filled in, plus
     * "name") and build a transport. No I/O starts yet. `callbacks` and `host` outlive the object. */
    mcph_status (*create)(const mcph_host_services* host, mcph_str config_json,
                          const mcph_transport_callbacks* callbacks, mcph_transport** out, mcph_error* err);

    /* [host-thread] Start I/O: spawn the process / open the connection. Returns once the channel
     * can accept `send` (it may still fail later through on_closed). */
    mcph_status (*start)(mcph_transport* transport, mcph_error* err);

    /* [thread-safe] Send one JSON-RPC message (no embedded newline for line-framed transports; the
     * plugin frames it). May be called from inside on_message. Returns MCPH_ERR_CLOSED after close
     * or after on_closed. Blocking on back-pressure is allowed; unbounded buffering is not. */
    mcph_status (*send)(mcph_transport* transport, mcph_str message, mcph_error* err);

    /* [thread-safe] Set a run-time option. Keys used by the host today:
     *   "protocol-version"  the negotiated MCP version (HTTP sends it as MCP-Protocol-Version)
     *   "initialized"       the lifecycle finished (2025 era only): set right after sending
     *                       notifications/initialized and before any other message. A transport
     *                       that could let a later message reach the server first (a connection
     *                       per message) keeps what follows until the server has taken the
     *                       notification in; HTTP then opens its GET stream.
     *   "era"               [v1.1] "modern" (2026-07-28 and later: stateless — no session id, no GET
     *                       stream, no Last-Event-ID resumption) or "legacy" (the default)
     * Unknown keys return MCPH_ERR_UNSUPPORTED, which the host ignores. May be NULL. */
    mcph_status (*set_option)(mcph_transport* transport, mcph_str key, mcph_str value, mcph_error* err);

    /* [host-thread, never from inside a callback] Orderly shutdown; blocks until every plugin
     * thread serving this transport has stopped. After it returns, no callback fires again.
     * Idempotent. */
    void (*close)(mcph_transport* transport);

    /* [host-thread] Release the object (closing it first if needed). */
    void (*destroy)(mcph_transport* transport);

    /* ---- v1.1 (present when struct_size covers them) ---- */

    /* MCPH_TRAIT_* flags. Static. */
    uint32_t traits;

    /* [thread-safe] `send` with the facts the host knows about the message (may be NULL: then it
     * is exactly `send`). An HTTP transport sends Mcp-Method, Mcp-Name and Mcp-Param-* from them. */
    mcph_status (*send_ex)(mcph_transport* transport, mcph_str message, const mcph_message_facts* facts,
                           mcph_error* err);

    /* [thread-safe] The host gave up on one request (id as JSON text): a transport with
     * MCPH_TRAIT_PER_REQUEST_CANCEL ends that request's response stream. No callback for that
     * request fires after it returns. May be NULL. */
    mcph_status (*cancel)(mcph_transport* transport, mcph_str request_id, mcph_error* err);

    /* ---- v1.3 (present when struct_size covers it) ---- */

    /* [any host thread, one at a time per transport, never from inside a callback] Read what the
     * peer has sent and deliver it through the callbacks ON THE CALLING THREAD, so a host thread
     * waiting for a reply reads it itself instead of sleeping while a plugin thread reads it and
     * wakes it (two sleeps and two wake-ups per call become one). Returns:
     *   MCPH_OK           after delivering at least one message (on_message, or on_closed*);
     *                     or at once when the plugin's own reading thread delivered one since
     *                     the previous pump returned (perhaps the awaited reply, which came just
     *                     before the pump: the host looks for its reply after every pump);
     *   MCPH_ERR_TIMEOUT  when `timeout_ms` (>= 0) passed with nothing delivered;
     *   MCPH_BUSY         at once when another host thread is pumping, or when called on a
     *                     plugin thread: nothing was read;
     *   MCPH_ERR_CLOSED   at once after close() began or after on_closed fired;
     *   MCPH_ERR_UNSUPPORTED when this transport cannot be read from a host thread.
     * Every other rule stays: on_message calls are serialised in arrival order whichever thread
     * makes them, on_closed fires once after the last on_message, and `close` (from another host
     * thread) makes a pump in progress return soon and returns only once it has left the plugin.
     * While no host thread pumps, the plugin reads on its own threads as before. May be NULL. */
    mcph_status (*pump)(mcph_transport* transport, int32_t timeout_ms, mcph_error* err);
} mcph_transport_vtable_v1;

/* ---------------------------------------------------------------------------------------------- */
/* Auth interface "mcph.auth/1"                                                                   */
/* ---------------------------------------------------------------------------------------------- */

typedef struct mcph_auth mcph_auth; /* opaque, owned by the plugin; one per server */

typedef struct mcph_auth_vtable_v1 {
    uint32_t struct_size;

    /* The backend name a server config selects it by (e.g. "oauth", "xaa"). Static. */
    const char* backend_name;

    /* [host-thread] Build the auth state for one server. `auth_config_json` is the server's
     * auth/oauth config object (may be "{}"); `server_url` is the MCP endpoint. */
    mcph_status (*create)(const mcph_host_services* host, mcph_str server_name, mcph_str server_url,
                          mcph_str auth_config_json, mcph_auth** out, mcph_error* err);

    /* [thread-safe, may block] Add the headers for the next request (e.g. a Bearer token; may
     * refresh it first). MCPH_ERR_AUTH when no usable credential exists. */
    mcph_status (*get_headers)(mcph_auth* auth, const mcph_header_sink* sink, mcph_error* err);

    /* [thread-safe, may block] The server answered `http_status` (401/403) with this challenge.
     * May run discovery, refresh, or an interactive flow through host->open_url.
     * MCPH_OK = retry the request once with fresh headers. */
    mcph_status (*handle_challenge)(mcph_auth* auth, int http_status, mcph_str www_authenticate,
                                    mcph_error* err);

    /* [host-thread, may block] Explicit interactive login / forget stored credentials. */
    mcph_status (*login)(mcph_auth* auth, mcph_error* err);
    mcph_status (*logout)(mcph_auth* auth, mcph_error* err);

    /* [thread-safe] A JSON object describing the state for status views. Never contains secrets. */
    mcph_status (*describe)(mcph_auth* auth, const mcph_string_sink* out, mcph_error* err);

    /* [host-thread] Release the object. */
    void (*destroy)(mcph_auth* auth);

    /* ---- v1.2 (present when struct_size covers them) ---- */

    /* [thread-safe] Headers for one HTTP request (a DPoP proof binds to its method and URL). With
     * MCPH_AUTH_NONBLOCKING in `flags` the call must do no network I/O and never wait on another
     * thread's refresh: it answers MCPH_PENDING when that would be needed, and the host calls
     * again without the flag on a thread where blocking is fine. May be NULL (then get_headers). */
    mcph_status (*get_headers_ex)(mcph_auth* auth, const mcph_auth_request* request, uint32_t flags,
                                  const mcph_header_sink* sink, mcph_error* err);

    /* [thread-safe, may block] handle_challenge with the whole response (status, challenges,
     * headers such as DPoP-Nonce). MCPH_OK = retry the request once. May be NULL. */
    mcph_status (*handle_challenge_ex)(mcph_auth* auth, const mcph_auth_request* request, mcph_error* err);

    /* [thread-safe] Make any blocking call of this object in progress (a browser sign-in waiting
     * for its redirect, a refresh) return soon with MCPH_ERR_CANCELLED. Later calls work normally.
     * The host calls it when the server is being closed. May be NULL. */
    void (*cancel)(mcph_auth* auth);
} mcph_auth_vtable_v1;

/* ---------------------------------------------------------------------------------------------- */
/* The plugin descriptor and its single entry point                                               */
/* ---------------------------------------------------------------------------------------------- */

typedef struct mcph_plugin {
    uint32_t struct_size;
    uint32_t abi_major; /* must equal MCPH_ABI_MAJOR of the host */
    uint32_t abi_minor;
    const char* name;        /* e.g. "transport-stdio"; NUL-terminated, static */
    const char* version;     /* e.g. "0.1.0" */
    const char* description; /* one line */

    /* [host-thread] Called once after loading, before get_interface. May be NULL. A failure makes
     * the host skip the plugin and show the message. `host` stays valid until shutdown returns. */
    mcph_status (*init)(const mcph_host_services* host, mcph_error* err);

    /* [host-thread] The vtable for a versioned interface id, or NULL if not provided. The pointer
     * stays valid until shutdown. */
    const void* (*get_interface)(const char* interface_id);

    /* [host-thread] Called once before unloading, after every object it created was destroyed.
     * May be NULL. */
    void (*shutdown)(void);
} mcph_plugin;

typedef const mcph_plugin* (*mcph_plugin_entry_fn)(void);

/* The one symbol a plugin exports. */
MCPH_PLUGIN_EXPORT const mcph_plugin* mcph_plugin_entry(void);

/* Helpers usable from C and C++ on both sides. */
static inline mcph_str mcph_str_from(const char* ptr, size_t len) {
    mcph_str s;
    s.ptr = ptr;
    s.len = len;
    return s;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MCPH_PLUGIN_API_H */
