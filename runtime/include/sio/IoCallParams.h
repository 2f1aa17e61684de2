// Preprocessor helpers for the P(KIND, TYPE, name) parameter lists of
// sio/IoCalls.def, shared by every component that generates code from the
// one list (the runtime's wrappers, the prefetch library's interposers).
//
//   SIO_MAP(m, P(...), P(...))   -> m(P(...)), m(P(...))
//   SIO_DECL(p)                  -> TYPE name   (a parameter declaration)
//   SIO_TYPE(p)                  -> TYPE
//   SIO_NAME(p)                  -> name        (to forward the argument)
#pragma once

#define SIO_PARENS ()
#define SIO_EXPAND(...) SIO_EXPAND3(SIO_EXPAND3(SIO_EXPAND3(SIO_EXPAND3(__VA_ARGS__))))
#define SIO_EXPAND3(...) SIO_EXPAND2(SIO_EXPAND2(SIO_EXPAND2(SIO_EXPAND2(__VA_ARGS__))))
#define SIO_EXPAND2(...) SIO_EXPAND1(SIO_EXPAND1(SIO_EXPAND1(SIO_EXPAND1(__VA_ARGS__))))
#define SIO_EXPAND1(...) __VA_ARGS__
#define SIO_MAP(m, ...) __VA_OPT__(SIO_EXPAND(SIO_MAP_HELPER(m, __VA_ARGS__)))
#define SIO_MAP_HELPER(m, a, ...) m(a) __VA_OPT__(, SIO_MAP_AGAIN SIO_PARENS(m, __VA_ARGS__))
#define SIO_MAP_AGAIN() SIO_MAP_HELPER

#define SIO_DECL(p) SIO_DECL_##p
#define SIO_DECL_P(K, T, N) T N
#define SIO_TYPE(p) SIO_TYPE_##p
#define SIO_TYPE_P(K, T, N) T
#define SIO_NAME(p) SIO_NAME_##p
#define SIO_NAME_P(K, T, N) N
