#include "schema/evaluator.hpp"

#include "json/json_access.hpp"
#include "schema/json_equal.hpp"
#include "schema/uri_reference.hpp"

#include <cmath>

namespace mcph::schema {
namespace {

std::string pointer_of(const std::vector<std::string>& path) {
    std::string out;
    for (const std::string& token : path) {
        out.push_back('/');
        for (char c : token) {
            if (c == '~') out += "~0";
            else if (c == '/') out += "~1";
            else out.push_back(c);
        }
    }
    return out;
}

bool is_integer(const JsonValue& v) {
    if (v.IsInt64() || v.IsUint64()) return true;
    if (!v.IsNumber()) return false;
    const double d = v.GetDouble();
    return std::isfinite(d) && std::floor(d) == d;  // 1.0 is an integer in 2020-12
}

bool has_type(const JsonValue& v, std::string_view type) {
    if (type == "object") return v.IsObject();
    if (type == "array") return v.IsArray();
    if (type == "string") return v.IsString();
    if (type == "number") return v.IsNumber();
    if (type == "integer") return is_integer(v);
    if (type == "boolean") return v.IsBool();
    if (type == "null") return v.IsNull();
    return false;
}

// The keyword's value when it is a number, else null (a malformed keyword asserts nothing).
const JsonValue* number_member(const JsonValue& schema, const char* keyword) {
    const JsonValue* v = json::member(schema, keyword);
    return v && v->IsNumber() ? v : nullptr;
}

// A non-negative integer keyword (maxLength, minItems...), saturated.
bool count_member(const JsonValue& schema, const char* keyword, std::uint64_t& value) {
    const JsonValue* v = number_member(schema, keyword);
    if (!v || !is_integer(*v) || v->GetDouble() < 0) return false;
    value = v->IsUint64() ? v->GetUint64() : static_cast<std::uint64_t>(std::min(v->GetDouble(), 1.8e19));
    return true;
}

bool multiple_of(const JsonValue& x, const JsonValue& m) {
    if (m.GetDouble() <= 0) return true;  // a malformed divisor asserts nothing
    if (x.IsInt64() && m.IsInt64()) return x.GetInt64() % m.GetInt64() == 0;
    const double q = x.GetDouble() / m.GetDouble();
    if (!std::isfinite(q)) return std::fmod(x.GetDouble(), m.GetDouble()) == 0;  // 1e308 / 0.5 overflows
    return std::fabs(q - std::nearbyint(q)) <= 1e-9 * std::max(1.0, std::fabs(q));
}

std::uint64_t code_points(const JsonValue& s) {
    std::uint64_t n = 0;
    for (rapidjson::SizeType i = 0; i < s.GetStringLength(); ++i)
        n += (static_cast<unsigned char>(s.GetString()[i]) & 0xC0) != 0x80;
    return n;
}

bool contains_name(const JsonValue& object, const JsonValue& name) {
    return name.IsString() && object.FindMember(name) != object.MemberEnd();
}

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

bool Evaluator::fail(const char* keyword) {
    failed_keyword_ = keyword;
    failed_location_ = pointer_of(path_);
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
        std::vector<std::string>& scope;
        bool pop;
        ~PopScope() {
            if (pop) scope.pop_back();
        }
    } pop_scope{scope_, new_scope};

    if (const JsonValue* ref = json::member(schema, "$ref"); ref && ref->IsString()) {
        if (!follow(json::view(*ref), false, instance, base, out)) return false;
        if (dialect_.ref_overrides_siblings) return true;
    }
    if (const JsonValue* ref = json::member(schema, "$dynamicRef"); ref && ref->IsString())
        if (!follow(json::view(*ref), true, instance, base, out)) return false;
    return assertions(schema, instance) && in_place(schema, instance, base, out) &&
           object_children(schema, instance, base, out) && array_children(schema, instance, base, out) &&
           unevaluated(schema, instance, base, out);
}

bool Evaluator::follow(std::string_view ref, bool dynamic, const JsonValue& instance, const std::string& base,
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
    if (dynamic && target.dynamic_anchor) {
        const std::string name(fragment_of(ref));
        for (const std::string& resource : scope_)
            if (const JsonValue* outer = index_.dynamic_anchor(resource, name)) {
                target.schema = outer;
                target.base = resource;
                break;
            }
    }
    Annotations annotations;
    if (!evaluate(*target.schema, instance, target.base, annotations)) return false;
    out.merge(annotations);
    return true;
}

bool Evaluator::child(const JsonValue& schema, const JsonValue& instance, std::string token, const std::string& base) {
    path_.push_back(std::move(token));
    Annotations ignored;  // a child's annotations are about the child, not this instance
    const bool ok = evaluate(schema, instance, base, ignored);
    path_.pop_back();
    return ok;
}

bool Evaluator::assertions(const JsonValue& schema, const JsonValue& instance) {
    if (const JsonValue* type = json::member(schema, "type")) {
        bool match = type->IsString() && has_type(instance, json::view(*type));
        if (type->IsArray())
            for (const JsonValue& t : type->GetArray()) match = match || (t.IsString() && has_type(instance, json::view(t)));
        if (!match && (type->IsString() || type->IsArray())) return fail("type");
    }
    if (const JsonValue* values = json::array_member(schema, "enum")) {
        if (!charge(values->Size())) return false;
        bool found = false;
        for (const JsonValue& v : values->GetArray()) found = found || json_equal(v, instance);
        if (!found) return fail("enum");
    }
    if (const JsonValue* value = json::member(schema, "const"); value && !json_equal(*value, instance)) return fail("const");
    if (instance.IsNumber()) return number_assertions(schema, instance);
    if (instance.IsString()) return string_assertions(schema, instance);
    if (instance.IsArray()) return array_assertions(schema, instance);
    if (instance.IsObject()) return object_assertions(schema, instance);
    return true;
}

bool Evaluator::number_assertions(const JsonValue& schema, const JsonValue& x) {
    if (const JsonValue* m = number_member(schema, "multipleOf"); m && !multiple_of(x, *m)) return fail("multipleOf");
    const bool draft4 = dialect_.boolean_exclusive_bounds;
    if (const JsonValue* max = number_member(schema, "maximum")) {
        const bool exclusive = draft4 && json::bool_or(schema, "exclusiveMaximum", false);
        const int c = compare_numbers(x, *max);
        if (c > 0 || (exclusive && c == 0)) return fail(exclusive ? "exclusiveMaximum" : "maximum");
    }
    if (const JsonValue* min = number_member(schema, "minimum")) {
        const bool exclusive = draft4 && json::bool_or(schema, "exclusiveMinimum", false);
        const int c = compare_numbers(x, *min);
        if (c < 0 || (exclusive && c == 0)) return fail(exclusive ? "exclusiveMinimum" : "minimum");
    }
    if (draft4) return true;
    if (const JsonValue* max = number_member(schema, "exclusiveMaximum"); max && compare_numbers(x, *max) >= 0)
        return fail("exclusiveMaximum");
    if (const JsonValue* min = number_member(schema, "exclusiveMinimum"); min && compare_numbers(x, *min) <= 0)
        return fail("exclusiveMinimum");
    return true;
}

bool Evaluator::string_assertions(const JsonValue& schema, const JsonValue& s) {
    std::uint64_t bound = 0;
    if (count_member(schema, "maxLength", bound) && code_points(s) > bound) return fail("maxLength");
    if (count_member(schema, "minLength", bound) && code_points(s) < bound) return fail("minLength");
    if (const JsonValue* source = json::member(schema, "pattern"); source && source->IsString())
        // A pattern the linear-time engine cannot read is not checked (pattern.hpp).
        if (const Pattern* p = index_.pattern(json::view(*source))) {
            if (!charge(p->cost(s.GetStringLength()))) return false;
            if (!p->search(json::view(s))) return fail("pattern");
        }
    return true;
}

bool Evaluator::array_assertions(const JsonValue& schema, const JsonValue& a) {
    std::uint64_t bound = 0;
    if (count_member(schema, "maxItems", bound) && a.Size() > bound) return fail("maxItems");
    if (count_member(schema, "minItems", bound) && a.Size() < bound) return fail("minItems");
    if (json::bool_or(schema, "uniqueItems", false)) {
        // Pairwise, charged to the budget: a long array cannot buy unbounded time.
        const std::size_t n = a.Size();
        if (!charge(n * (n > 0 ? n - 1 : 0) / 2 / 8)) return false;
        for (rapidjson::SizeType i = 0; i < n; ++i)
            for (rapidjson::SizeType j = i + 1; j < n; ++j)
                if (json_equal(a[i], a[j])) return fail("uniqueItems");
    }
    return true;
}

bool Evaluator::object_assertions(const JsonValue& schema, const JsonValue& o) {
    std::uint64_t bound = 0;
    if (count_member(schema, "maxProperties", bound) && o.MemberCount() > bound) return fail("maxProperties");
    if (count_member(schema, "minProperties", bound) && o.MemberCount() < bound) return fail("minProperties");
    if (const JsonValue* required = json::array_member(schema, "required"))
        for (const JsonValue& name : required->GetArray())
            if (name.IsString() && !contains_name(o, name)) return fail("required");
    // draft-07's `dependencies` is honoured in every dialect (the suite's dependencies-compatibility):
    // schemas written for older drafts still carry it.
    for (const char* dependent : {"dependentRequired", "dependencies"}) {
        if (dialect_.dependencies && std::string_view(dependent) == "dependentRequired") continue;  // not in draft-07
        if (const JsonValue* deps = json::object_member(schema, dependent))
            for (const auto& dep : deps->GetObject()) {
                if (!dep.value.IsArray() || !contains_name(o, dep.name)) continue;
                for (const JsonValue& name : dep.value.GetArray())
                    if (name.IsString() && !contains_name(o, name)) return fail(dependent);
            }
    }
    return true;
}

bool Evaluator::in_place(const JsonValue& schema, const JsonValue& instance, const std::string& base, Annotations& out) {
    if (const JsonValue* all = json::array_member(schema, "allOf"))
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
    if (const JsonValue* any = json::array_member(schema, "anyOf")) {
        bool matched = false;
        for (const JsonValue& sub : any->GetArray()) {  // every branch: each adds annotations
            Annotations a;
            if (evaluate(sub, instance, base, a)) matched = true, out.merge(a);
            if (!error_.empty()) return false;
        }
        if (!matched) return fail("anyOf");
        restore();
    }
    if (const JsonValue* one = json::array_member(schema, "oneOf")) {
        std::size_t matched = 0;
        for (const JsonValue& sub : one->GetArray()) {
            Annotations a;
            if (evaluate(sub, instance, base, a)) ++matched, out.merge(a);
            if (!error_.empty()) return false;
        }
        if (matched != 1) return fail("oneOf");
        restore();
    }
    if (const JsonValue* negated = json::member(schema, "not")) {
        Annotations ignored;
        const bool matched = evaluate(*negated, instance, base, ignored);
        if (!error_.empty()) return false;
        if (matched) return fail("not");
        restore();
    }
    if (!conditional(schema, instance, base, out)) return false;
    for (const char* dependent : {"dependentSchemas", "dependencies"}) {
        if (dialect_.dependencies && std::string_view(dependent) == "dependentSchemas") continue;
        if (const JsonValue* deps = json::object_member(schema, dependent); deps && instance.IsObject())
            for (const auto& dep : deps->GetObject()) {
                if (dep.value.IsArray() || !contains_name(instance, dep.name)) continue;  // arrays: the required form
                Annotations a;
                if (!evaluate(dep.value, instance, base, a)) return false;
                out.merge(a);
            }
    }
    return true;
}

bool Evaluator::conditional(const JsonValue& schema, const JsonValue& instance, const std::string& base, Annotations& out) {
    const JsonValue* condition = json::member(schema, "if");
    if (!condition) return true;
    const std::string saved_keyword = failed_keyword_, saved_location = failed_location_;
    Annotations a;
    const bool holds = evaluate(*condition, instance, base, a);
    if (!error_.empty()) return false;
    failed_keyword_ = saved_keyword;
    failed_location_ = saved_location;
    if (holds) out.merge(a);
    const JsonValue* branch = json::member(schema, holds ? "then" : "else");
    if (!branch) return true;
    Annotations b;
    if (!evaluate(*branch, instance, base, b)) return false;
    out.merge(b);
    return true;
}

bool Evaluator::object_children(const JsonValue& schema, const JsonValue& o, const std::string& base, Annotations& out) {
    if (!o.IsObject()) return true;
    const JsonValue* properties = json::object_member(schema, "properties");
    const JsonValue* patterns = json::object_member(schema, "patternProperties");
    const JsonValue* additional = json::member(schema, "additionalProperties");
    const JsonValue* names = json::member(schema, "propertyNames");
    for (const auto& m : o.GetObject()) {
        const std::string name(json::view(m.name));
        bool matched = false;
        if (properties)
            if (auto it = properties->FindMember(m.name); it != properties->MemberEnd()) {
                if (!child(it->value, m.value, name, base)) return false;
                matched = true;
            }
        if (patterns)
            for (const auto& p : patterns->GetObject()) {
                const Pattern* re = index_.pattern(json::view(p.name));
                // Unreadable pattern (pattern.hpp): the property counts as matched, unchecked.
                if (re && !charge(re->cost(name.size()))) return false;
                if (re && !re->search(name)) continue;
                if (re && !child(p.value, m.value, name, base)) return false;
                matched = true;
            }
        if (!matched && additional) {
            if (!child(*additional, m.value, name, base)) return false;
            matched = true;
        }
        if (matched) out.properties.insert(name);
        if (names) {
            const JsonValue key(rapidjson::StringRef(m.name.GetString(), m.name.GetStringLength()));
            if (!child(*names, key, name, base)) return false;
        }
    }
    return true;
}

bool Evaluator::array_children(const JsonValue& schema, const JsonValue& a, const std::string& base, Annotations& out) {
    if (!a.IsArray()) return true;
    const JsonValue* items = json::member(schema, "items");
    const JsonValue* prefix = json::array_member(schema, "prefixItems");
    const JsonValue* rest = items;
    if (dialect_.tuple_items) {  // items: [..] is the tuple, additionalItems the rest
        prefix = items && items->IsArray() ? items : nullptr;
        rest = prefix ? json::member(schema, "additionalItems") : items;
    }
    const rapidjson::SizeType n = a.Size();
    rapidjson::SizeType i = 0;
    if (prefix) {
        for (; i < n && i < prefix->Size(); ++i)
            if (!child((*prefix)[i], a[i], std::to_string(i), base)) return false;
        out.prefix_items = std::max<std::size_t>(out.prefix_items, i);
    }
    if (rest && (rest->IsObject() || rest->IsBool())) {
        for (; i < n; ++i)
            if (!child(*rest, a[i], std::to_string(i), base)) return false;
        out.all_items = true;
    }
    return contains(schema, a, base, out);
}

bool Evaluator::contains(const JsonValue& schema, const JsonValue& a, const std::string& base, Annotations& out) {
    const JsonValue* wanted = json::member(schema, "contains");
    if (!wanted) return true;
    const std::string saved_keyword = failed_keyword_, saved_location = failed_location_;
    std::uint64_t matched = 0;
    for (rapidjson::SizeType i = 0; i < a.Size(); ++i) {
        if (child(*wanted, a[i], std::to_string(i), base)) ++matched, out.contained.insert(i);
        if (!error_.empty()) return false;
    }
    failed_keyword_ = saved_keyword;
    failed_location_ = saved_location;
    std::uint64_t least = 1, most = 0;
    count_member(schema, "minContains", least);
    if (matched < least) return fail(least == 1 ? "contains" : "minContains");
    if (count_member(schema, "maxContains", most) && matched > most) return fail("maxContains");
    return true;
}

bool Evaluator::unevaluated(const JsonValue& schema, const JsonValue& instance, const std::string& base, Annotations& out) {
    if (const JsonValue* rest = json::member(schema, "unevaluatedProperties"); rest && instance.IsObject()) {
        for (const auto& m : instance.GetObject()) {
            std::string name(json::view(m.name));
            if (out.properties.count(name)) continue;
            if (!child(*rest, m.value, name, base)) return false;
            out.properties.insert(std::move(name));
        }
    }
    if (const JsonValue* rest = json::member(schema, "unevaluatedItems"); rest && instance.IsArray() && !out.all_items) {
        for (rapidjson::SizeType i = static_cast<rapidjson::SizeType>(out.prefix_items); i < instance.Size(); ++i)
            if (!out.contained.count(i) && !child(*rest, instance[i], std::to_string(i), base)) return false;
        out.all_items = true;
    }
    return true;
}

}  // namespace mcph::schema
