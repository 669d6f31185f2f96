// Follows nextCursor across pages of a list result, defensively: a server whose cursor does not
// advance (repeats an earlier cursor) or that never stops is cut off with a clear error instead
// of looping forever, and items repeated across pages are dropped by key.
#pragma once

#include <mcph/json.hpp>

#include <functional>
#include <optional>
#include <string>

namespace mcph::session {

struct PaginationLimits {
    std::size_t max_pages = 1000;
};

// fetch_page(cursor) returns one page's result object (cursor empty for the first page).
// on_item(item) is called for each element of result[items_key]; it returns the item's identity
// key (e.g. its name or uri) used to drop duplicates, or nullopt to keep it unconditionally.
// A repeated cursor or too many pages stops the walk, keeps what was collected and reports it
// through `on_warning`; a malformed page throws mcph::Error(Protocol) naming `what`.
void for_each_page_item(const std::string& what, const char* items_key,
                        const std::function<Json(const std::string& cursor)>& fetch_page,
                        const std::function<std::optional<std::string>(const JsonValue& item)>& item_key,
                        const std::function<void(const JsonValue& item)>& on_item,
                        const std::function<void(const std::string& warning)>& on_warning,
                        PaginationLimits limits = {});

}  // namespace mcph::session
