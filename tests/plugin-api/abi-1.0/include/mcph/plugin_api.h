/*
 * mcph plugin ABI, version 1 — the only contract between the mcph host and its plugins.
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
#define MCPH_ABI_MINOR 0u

#define MCPH_ENTRY_SYMBOL "mcph_plugin_entry"
#define MCPH_TRANSPORT_INTERFACE_V1 "mcph.transport/1"
#define MCPH_AUTH_INTERFACE_V1 "mcph.auth/1"

#if defined(_WIN32)
#define MCPH_PLUGIN_EXPORT __declspec(dllexport)
#else
#define MCPH_PLUGIN_EXPORT __attribute__((visibility("default")))
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
    MCPH_ERR_CANCELLED = 9         /* the user or the application declined (e.g. open_url refused) */
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
     *   "initialized"       the lifecycle finished (HTTP opens its GET stream now)
     * Unknown keys return MCPH_ERR_UNSUPPORTED, which the host ignores. May be NULL. */
    mcph_status (*set_option)(mcph_transport* transport, mcph_str key, mcph_str value, mcph_error* err);

    /* [host-thread, never from inside a callback] Orderly shutdown; blocks until every plugin
     * thread serving this transport has stopped. After it returns, no callback fires again.
     * Idempotent. */
    void (*close)(mcph_transport* transport);

    /* [host-thread] Release the object (closing it first if needed). */
    void (*destroy)(mcph_transport* transport);
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
