// MCPH_API: what libmcph exports. The library is built with hidden visibility, so only the
// classes and functions of the public headers marked MCPH_API are part of its ABI (and of the
// expected-symbols list in tests/abi). Classes are marked whole, which also exports their typeinfo
// and vtable: mcph::Error is thrown out of the library and caught by its users, which needs one
// typeinfo both sides agree on.
#pragma once

//
// MCPH_LOCAL: a member of an exported class that is not API (a private constructor only the
// library calls, the state behind a Host): members of an MCPH_API class are exported unless so
// marked, and an exported symbol is a promise (docs/compatibility.md).
#if defined(_WIN32)
#  if defined(MCPH_BUILDING_LIBRARY)
#    define MCPH_API __declspec(dllexport)
#  else
#    define MCPH_API __declspec(dllimport)
#  endif
#  define MCPH_LOCAL
#else
// The same attribute when building and using the library: a user's own -fvisibility=hidden
// must not hide the typeinfo of mcph::Error it catches.
#  define MCPH_API __attribute__((visibility("default")))
#  define MCPH_LOCAL __attribute__((visibility("hidden")))
#endif
