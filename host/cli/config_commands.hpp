// `mcph add | add-json | remove | enable | disable | approve | reconnect | migrate-local` (config_commands.cpp).
#pragma once

#include "options.hpp"

#include <mcph/host.hpp>

namespace mcph::cli {

// The checks `add` makes before saving (also used by `import`): a name that can be typed back and
// is not an option; an entry the host's own config reader accepts. Throw mcph::Error(Usage).
void check_server_name(const std::string& name);
void check_entry(const std::string& name, const JsonValue& entry);

int cmd_add(Host& host, const Options& o);
int cmd_add_json(Host& host, const Options& o);
// `mcph get <name>` (get_command.cpp): a definition with its secrets masked.
int cmd_get(Host& host, const Options& o);
// "inheritEnv: <value> (<where it came from>)" for a stdio server (get_command.cpp), also shown by
// `approve`: how much of the user's environment the server receives is part of what is approved.
std::string inherit_env_line(const ServerDefinition& d);
int cmd_remove(Host& host, const Options& o);
int cmd_enable(Host& host, const Options& o);
int cmd_disable(Host& host, const Options& o);
int cmd_approve(Host& host, const Options& o);
int cmd_reconnect(Host& host, const Options& o);
int cmd_migrate_local(Host& host, const Options& o);

// On a terminal, offers to move an in-repository .mcph/settings.local.json to the user's local
// settings (asking first: the file may have come with the repository). Non-interactively it only
// says how (`mcph migrate-local`); the file keeps project trust.
void offer_local_migration(Host& host, bool interactive);

}  // namespace mcph::cli
