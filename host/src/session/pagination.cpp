#include "session/pagination.hpp"

#include "json/json_access.hpp"

#include <mcph/error.hpp>

#include <unordered_set>

namespace mcph::session {

void for_each_page_item(const std::string& what, const char* items_key,
                        const std::function<Json(const std::string& cursor)>& fetch_page,
                        const std::function<std::optional<std::string>(const JsonValue& item)>& item_key,
                        const std::function<void(const JsonValue& item)>& on_item,
                        const std::function<void(const std::string& warning)>& on_warning, PaginationLimits limits) {
    std::unordered_set<std::string> seen_cursors;
    std::unordered_set<std::string> seen_items;
    std::string cursor;
    for (std::size_t page = 0;; ++page) {
        if (page >= limits.max_pages) {
            on_warning(what + ": more than " + std::to_string(limits.max_pages) +
                       " pages; stopped following nextCursor");
            return;
        }
        Json result = fetch_page(cursor);
        if (!result.IsObject()) throw Error(ErrorKind::Protocol, what + ": result is not an object");
        const JsonValue* items = json::array_member(result, items_key);
        if (!items) throw Error(ErrorKind::Protocol, what + ": result has no '" + items_key + "' array");
        for (const JsonValue& item : items->GetArray()) {
            std::optional<std::string> key = item_key(item);
            if (key && !seen_items.insert(*key).second) continue;  // repeated across pages
            on_item(item);
        }
        const JsonValue* next = json::member(result, "nextCursor");
        if (!next || next->IsNull()) return;
        if (!next->IsString()) throw Error(ErrorKind::Protocol, what + ": nextCursor is not a string");
        cursor.assign(next->GetString(), next->GetStringLength());
        if (cursor.empty()) return;
        if (!seen_cursors.insert(cursor).second) {
            on_warning(what + ": server repeated cursor '" + cursor + "'; pagination does not advance, stopped");
            return;
        }
    }
}

}  // namespace mcph::session
