#include "schema/evaluator.hpp"

#include "json/json_access.hpp"
#include "schema/keyword_values.hpp"
#include "schema/uri_reference.hpp"

#include <cmath>

namespace mcph::schema {
namespace {

using keyword::contains_name;

struct Counter {
    explicit Counter(std::size_t& n) : n_(n) { ++n_; }
    ~Counter() { --n_; }
    std::size_t& n_;
};

}  // namespace

void Evaluator::Annotations::merge(const Annotations& other) {
    properties.insert(other.properties.begin(), other.properties.end());
    prefix_items = std::max(prefix_items, other.prefix_items);
    all_items = all_items || other.all_items;
    contained.insert(other.contained.begin(), other.contained.end());
}

ValidationResult Evaluator::run(const JsonValue& schema, const JsonValue& instance) {
    Annotations annotations;
    const bool ok = evaluate(schema, instance, "", annotations);
    ValidationResult result;
    if (!error_.empty()) {
        result.status = ValidationResult::Status::Error;
        result.cause = cause_;
        result.message = error_;
    } else if (!ok) {
        result.status = ValidationResult::Status::Invalid;
        result.keyword = failed_keyword_;
        result.instance_location = failed_location_;
    }
    return result;
}

// A JSON Pointer, made only when a keyword fails (the path is kept as views and indices).
std::string Evaluator::instance_location() const {
    std::string out;
    for (const PathStep& step : path_) {
        out.push_back('/');
        if (step.is_index) {
            out += std::to_string(step.index);
            continue;
        }
        for (char c : step.name) {
            if (c == '~') out += "~0";
            else if (c == '/') out += "~1";
            else out.push_back(c);
        }
    }
    return out;
}

bool Evaluator::fail(const char* keyword) {
    failed_keyword_ = keyword;
    failed_location_ = instance_location();
    return false;
}

bool Evaluator::stop(ValidationResult::Cause cause, std::string message) {
    if (error_.empty()) error_ = std::move(message), cause_ = cause;
    return false;
}

bool Evaluator::charge(std::size_t evaluations) {
    evaluations_ += evaluations;
    if (evaluations_ <= limits_.max_evaluations) return true;
    return stop(ValidationResult::Cause::Bound, "validation stopped: the budget of " + std::to_string(limits_.max_evaluations) +
                " subschema evaluations per validation is exhausted");
}

bool Evaluator::evaluate(const JsonValue& schema, const JsonValue& instance, const std::string& parent_base,
                         Annotations& out) {
    if (!error_.empty() || !charge(1)) return false;
    if (depth_ >= limits_.max_depth)
        return stop(ValidationResult::Cause::Bound, "validation stopped: subschemas nest deeper than " + std::to_string(limits_.max_depth) +
                    " (counting each $ref followed)");
    Counter depth(depth_);
    if (schema.IsBool()) return schema.GetBool() || fail("false");
    if (!schema.IsObject()) return true;
    const std::string* declared = index_.declared_base(&schema);
    const std::string& base = declared ? *declared : parent_base;
    const bool new_scope = scope_.empty() || scope_.back() != base;
    if (new_scope) scope_.push_back(base);
    struct PopScope {
        decltype(scope_)& scope;
        bool pop;
        ~PopScope() {
            if (pop) scope.pop_back();
        }
    } pop_scope{scope_, new_scope};

    const KeywordSet k = index_.keywords(schema);
    if (k.empty()) return true;  // {} or only annotations: nothing to check
    if (const JsonValue* ref = k.get(Keyword::Ref); ref && ref->IsString()) {
        if (!follow(json::view(*ref), RefKind::Static, instance, base, out)) return false;
        if (dialect_.ref_overrides_siblings) return true;
    }
    if (const JsonValue* ref = k.get(Keyword::DynamicRef); ref && ref->IsString())
        if (!follow(json::view(*ref), RefKind::Dynamic, instance, base, out)) return false;
    if (const JsonValue* ref = k.get(Keyword::RecursiveRef); ref && ref->IsString() && dialect_.recursive_ref)
        if (!follow(json::view(*ref), RefKind::Recursive, instance, base, out)) return false;
    return assertions(k, instance) && in_place(k, instance, base, out) && object_children(k, instance, base, out) &&
           array_children(k, instance, base, out) && unevaluated(k, instance, base, out);
}

bool Evaluator::follow(std::string_view ref, RefKind kind, const JsonValue& instance, const std::string& base,
                       Annotations& out) {
    if (++refs_followed_ > limits_.max_refs_followed)
        return stop(ValidationResult::Cause::Bound, "validation stopped: more than " + std::to_string(limits_.max_refs_followed) +
                    " $ref followed in one validation");
    RefTarget target = index_.resolve(base, ref);
    if (!target.schema)
        return stop(target.network ? ValidationResult::Cause::NetworkRef : ValidationResult::Cause::UnresolvedRef,
                    std::move(target.error));
    // $dynamicRef to a $dynamicAnchor: the outermost resource in the dynamic scope that declares
    // the same dynamic anchor wins (2020-12 section 8.2.3.2).
    if (kind == RefKind::Dynamic && target.dynamic_anchor) {
        const std::string name(fragment_of(ref));
        for (const std::string_view resource : scope_)
            if (const JsonValue* outer = index_.dynamic_anchor(resource, name)) {
                target.schema = outer;
                target.base = resource;
                break;
            }
    }
    // 2019-09 $recursiveRef to a resource with "$recursiveAnchor": true: the outermost resource
    // in the dynamic scope that also has it wins (2019-09 section 8.2.4.2).
    if (kind == RefKind::Recursive && json::bool_or(*target.schema, "$recursiveAnchor", false)) {
        for (const std::string_view resource : scope_) {
            const RefTarget outer = index_.resolve(resource, "");
            if (outer.schema && json::bool_or(*outer.schema, "$recursiveAnchor", false)) {
                target.schema = outer.schema;
                target.base = resource;
                break;
            }
        }
    }
    Annotations annotations;
    if (!evaluate(*target.schema, instance, target.base, annotations)) return false;
    out.merge(annotations);
    return true;
}

bool Evaluator::child(const JsonValue& schema, const JsonValue& instance, PathStep step, const std::string& base) {
    path_.push_back(step);
    Annotations ignored;  // a child's annotations are about the child, not this instance
    const bool ok = evaluate(schema, instance, base, ignored);
    path_.pop_back();
    return ok;
}

bool Evaluator::in_place(const KeywordSet& k, const JsonValue& instance, const std::string& base, Annotations& out) {
    if (!k.has_any({Keyword::AllOf, Keyword::AnyOf, Keyword::OneOf, Keyword::Not, Keyword::If, Keyword::DependentSchemas,
                    Keyword::Dependencies}))
        return true;
    if (const JsonValue* all = k.array(Keyword::AllOf))
        for (const JsonValue& sub : all->GetArray()) {
            Annotations a;
            if (!evaluate(sub, instance, base, a)) return false;  // the inner failure says more
            out.merge(a);
        }
    const std::string saved_keyword = failed_keyword_, saved_location = failed_location_;
    auto restore = [&] {
        failed_keyword_ = saved_keyword;
        failed_location_ = saved_location;
    };
    if (const JsonValue* any = k.array(Keyword::AnyOf)) {
        bool matched = false;
        for (const JsonValue& sub : any->GetArray()) {  // every branch: each adds annotations
            Annotations a;
            if (evaluate(sub, instance, base, a)) matched = true, out.merge(a);
            if (!error_.empty()) return false;
        }
        if (!matched) return fail("anyOf");
        restore();
    }
    if (const JsonValue* one = k.array(Keyword::OneOf)) {
        std::size_t matched = 0;
        for (const JsonValue& sub : one->GetArray()) {
            Annotations a;
            if (evaluate(sub, instance, base, a)) ++matched, out.merge(a);
            if (!error_.empty()) return false;
        }
        if (matched != 1) return fail("oneOf");
        restore();
    }
    if (const JsonValue* negated = k.get(Keyword::Not)) {
        Annotations ignored;
        const bool matched = evaluate(*negated, instance, base, ignored);
        if (!error_.empty()) return false;
        if (matched) return fail("not");
        restore();
    }
    if (!conditional(k, instance, base, out)) return false;
    for (const Keyword dependent : {Keyword::DependentSchemas, Keyword::Dependencies}) {
        if (dialect_.dependencies && dependent == Keyword::DependentSchemas) continue;
        if (const JsonValue* deps = k.object(dependent); deps && instance.IsObject())
            for (const auto& dep : deps->GetObject()) {
                if (dep.value.IsArray() || !contains_name(instance, dep.name)) continue;  // arrays: the required form
                Annotations a;
                if (!evaluate(dep.value, instance, base, a)) return false;
                out.merge(a);
            }
    }
    return true;
}

bool Evaluator::conditional(const KeywordSet& k, const JsonValue& instance, const std::string& base, Annotations& out) {
    const JsonValue* condition = k.get(Keyword::If);
    if (!condition) return true;
    const std::string saved_keyword = failed_keyword_, saved_location = failed_location_;
    Annotations a;
    const bool holds = evaluate(*condition, instance, base, a);
    if (!error_.empty()) return false;
    failed_keyword_ = saved_keyword;
    failed_location_ = saved_location;
    if (holds) out.merge(a);
    const JsonValue* branch = k.get(holds ? Keyword::Then : Keyword::Else);
    if (!branch) return true;
    Annotations b;
    if (!evaluate(*branch, instance, base, b)) return false;
    out.merge(b);
    return true;
}

bool Evaluator::object_children(const KeywordSet& k, const JsonValue& o, const std::string& base, Annotations& out) {
    if (!o.IsObject()) return true;
    const JsonValue* properties = k.object(Keyword::Properties);
    const JsonValue* patterns = k.object(Keyword::PatternProperties);
    const JsonValue* additional = k.get(Keyword::AdditionalProperties);
    const JsonValue* names = k.get(Keyword::PropertyNames);
    if (!properties && !patterns && !additional && !names) return true;
    for (const auto& m : o.GetObject()) {
        const std::string_view name = json::view(m.name);
        const PathStep step{name};
        bool matched = false;
        if (properties)
            if (auto it = properties->FindMember(m.name); it != properties->MemberEnd()) {
                if (!child(it->value, m.value, step, base)) return false;
                matched = true;
            }
        if (patterns)
            for (const auto& p : patterns->GetObject()) {
                const Pattern* re = index_.pattern(json::view(p.name));
                // Unreadable pattern (pattern.hpp): the property counts as matched, unchecked.
                if (re && !charge(re->cost(name.size()))) return false;
                if (re && !re->search(name)) continue;
                if (re && !child(p.value, m.value, step, base)) return false;
                matched = true;
            }
        if (!matched && additional) {
            if (!child(*additional, m.value, step, base)) return false;
            matched = true;
        }
        if (matched && index_.reads_annotations()) out.properties.insert(name);
        if (names) {
            const JsonValue key(rapidjson::StringRef(m.name.GetString(), m.name.GetStringLength()));
            if (!child(*names, key, step, base)) return false;
        }
    }
    return true;
}

bool Evaluator::array_children(const KeywordSet& k, const JsonValue& a, const std::string& base, Annotations& out) {
    if (!a.IsArray()) return true;
    const JsonValue* items = k.get(Keyword::Items);
    const JsonValue* prefix = k.array(Keyword::PrefixItems);
    const JsonValue* rest = items;
    if (dialect_.tuple_items) {  // items: [..] is the tuple, additionalItems the rest
        prefix = items && items->IsArray() ? items : nullptr;
        rest = prefix ? k.get(Keyword::AdditionalItems) : items;
    }
    const rapidjson::SizeType n = a.Size();
    rapidjson::SizeType i = 0;
    if (prefix) {
        for (; i < n && i < prefix->Size(); ++i)
            if (!child((*prefix)[i], a[i], PathStep{{}, i, true}, base)) return false;
        out.prefix_items = std::max<std::size_t>(out.prefix_items, i);
    }
    if (rest && (rest->IsObject() || rest->IsBool())) {
        for (; i < n; ++i)
            if (!child(*rest, a[i], PathStep{{}, i, true}, base)) return false;
        out.all_items = true;
    }
    return contains(k, a, base, out);
}

bool Evaluator::contains(const KeywordSet& k, const JsonValue& a, const std::string& base, Annotations& out) {
    const JsonValue* wanted = k.get(Keyword::Contains);
    if (!wanted) return true;
    const std::string saved_keyword = failed_keyword_, saved_location = failed_location_;
    std::uint64_t matched = 0;
    for (rapidjson::SizeType i = 0; i < a.Size(); ++i) {
        if (child(*wanted, a[i], PathStep{{}, i, true}, base)) {
            ++matched;
            if (index_.reads_annotations()) out.contained.insert(i);
        }
        if (!error_.empty()) return false;
    }
    failed_keyword_ = saved_keyword;
    failed_location_ = saved_location;
    std::uint64_t least = 1, most = 0;
    k.count(Keyword::MinContains, least);
    if (matched < least) return fail(least == 1 ? "contains" : "minContains");
    if (k.count(Keyword::MaxContains, most) && matched > most) return fail("maxContains");
    return true;
}

bool Evaluator::unevaluated(const KeywordSet& k, const JsonValue& instance, const std::string& base, Annotations& out) {
    if (const JsonValue* rest = k.get(Keyword::UnevaluatedProperties); rest && instance.IsObject()) {
        for (const auto& m : instance.GetObject()) {
            const std::string_view name = json::view(m.name);
            if (out.properties.count(name)) continue;
            if (!child(*rest, m.value, PathStep{name}, base)) return false;
            out.properties.insert(name);
        }
    }
    if (const JsonValue* rest = k.get(Keyword::UnevaluatedItems); rest && instance.IsArray() && !out.all_items) {
        for (rapidjson::SizeType i = static_cast<rapidjson::SizeType>(out.prefix_items); i < instance.Size(); ++i)
            if (!out.contained.count(i) && !child(*rest, instance[i], PathStep{{}, i, true}, base)) return false;
        out.all_items = true;
    }
    return true;
}

}  // namespace mcph::schema
