/* hipkfd: HIP's fundamental vector types (char1 ... double4) and dim3's device companions.
 *
 * Layout follows AMD's HIP ABI so that kernel arguments and buffers agree with other HIP code:
 * 1-, 2- and 4-element types are aligned to their full size (they are native vectors on AMD),
 * 3-element types are three packed elements aligned like one element.
 * In C++ the types get constructors, make_* functions and element-wise operators; in C they are
 * plain structs with make_* functions. */
#ifndef HIPKFD_AMD_DETAIL_AMD_HIP_VECTOR_TYPES_H
#define HIPKFD_AMD_DETAIL_AMD_HIP_VECTOR_TYPES_H

#include <hip/amd_detail/host_defines.h>

#if defined(__cplusplus)
#include <type_traits>
#define __HIPKFD_VEC_HD__ __host__ __device__ inline __attribute__((always_inline))
#define __HIPKFD_VEC_CHD__ __host__ __device__ constexpr inline __attribute__((always_inline))
#else
#define __HIPKFD_VEC_HD__ static inline
#define __HIPKFD_VEC_CHD__ static inline
#endif

/* Element aggregates. In C++ each type is trivial (defaulted default constructor), so it can
 * be a __shared__ variable and is copied with memcpy, and it has the value constructors. */
#if defined(__cplusplus)
/* value_type names the element type, and a scalar of any arithmetic type fills every lane
 * (explicitly, converted as by static_cast, so `uint2{-2}` is not a narrowing error), as with
 * AMD's vector types. */
#define __HIPKFD_VEC_SPLAT(T, name, ...)                                                   \
  typedef T value_type;                                                                   \
  template <class U, class = typename std::enable_if<std::is_arithmetic<U>::value>::type>   \
  __HIPKFD_VEC_CHD__ explicit name(U v) : __VA_ARGS__ {}
#define __HIPKFD_VEC_CTORS1(T, name)                                                       \
  name() = default;                                                                       \
  __HIPKFD_VEC_CHD__ explicit name(T v) : x(v) {}                                          \
  __HIPKFD_VEC_SPLAT(T, name, x(static_cast<T>(v)))
#define __HIPKFD_VEC_CTORS2(T, name)                                                       \
  name() = default;                                                                       \
  __HIPKFD_VEC_CHD__ explicit name(T v) : x(v), y(v) {}                                    \
  __HIPKFD_VEC_CHD__ name(T a, T b) : x(a), y(b) {}                                        \
  __HIPKFD_VEC_SPLAT(T, name, x(static_cast<T>(v)), y(static_cast<T>(v)))
#define __HIPKFD_VEC_CTORS3(T, name)                                                       \
  name() = default;                                                                       \
  __HIPKFD_VEC_CHD__ explicit name(T v) : x(v), y(v), z(v) {}                              \
  __HIPKFD_VEC_CHD__ name(T a, T b, T c) : x(a), y(b), z(c) {}                             \
  __HIPKFD_VEC_SPLAT(T, name, x(static_cast<T>(v)), y(static_cast<T>(v)), z(static_cast<T>(v)))
#define __HIPKFD_VEC_CTORS4(T, name)                                                       \
  name() = default;                                                                       \
  __HIPKFD_VEC_CHD__ explicit name(T v) : x(v), y(v), z(v), w(v) {}                        \
  __HIPKFD_VEC_CHD__ name(T a, T b, T c, T d) : x(a), y(b), z(c), w(d) {}                  \
  __HIPKFD_VEC_SPLAT(T, name, x(static_cast<T>(v)), y(static_cast<T>(v)), z(static_cast<T>(v)), \
                     w(static_cast<T>(v)))
#else
#define __HIPKFD_VEC_CTORS1(T, name)
#define __HIPKFD_VEC_CTORS2(T, name)
#define __HIPKFD_VEC_CTORS3(T, name)
#define __HIPKFD_VEC_CTORS4(T, name)
#endif

#define __HIPKFD_VEC_STRUCTS(T, base)                                                      \
  typedef struct __attribute__((aligned(sizeof(T)))) base##1 {                             \
    T x;                                                                                  \
    __HIPKFD_VEC_CTORS1(T, base##1)                                                        \
  } base##1;                                                                              \
  typedef struct __attribute__((aligned(2 * sizeof(T)))) base##2 {                         \
    T x, y;                                                                               \
    __HIPKFD_VEC_CTORS2(T, base##2)                                                        \
  } base##2;                                                                              \
  typedef struct __attribute__((aligned(sizeof(T)))) base##3 {                             \
    T x, y, z;                                                                            \
    __HIPKFD_VEC_CTORS3(T, base##3)                                                        \
  } base##3;                                                                              \
  typedef struct __attribute__((aligned(4 * sizeof(T)))) base##4 {                         \
    T x, y, z, w;                                                                         \
    __HIPKFD_VEC_CTORS4(T, base##4)                                                        \
  } base##4;

#if defined(__cplusplus)
#define __HIPKFD_VEC_MAKE(T, base)                                                         \
  __HIPKFD_VEC_CHD__ base##1 make_##base##1(T a) { return base##1(a); }                     \
  __HIPKFD_VEC_CHD__ base##2 make_##base##2(T a, T b) { return base##2(a, b); }             \
  __HIPKFD_VEC_CHD__ base##3 make_##base##3(T a, T b, T c) { return base##3(a, b, c); }     \
  __HIPKFD_VEC_CHD__ base##4 make_##base##4(T a, T b, T c, T d) { return base##4(a, b, c, d); }
#else
#define __HIPKFD_VEC_MAKE(T, base)                                                         \
  static inline base##1 make_##base##1(T a) { base##1 r = {a}; return r; }                 \
  static inline base##2 make_##base##2(T a, T b) { base##2 r = {a, b}; return r; }         \
  static inline base##3 make_##base##3(T a, T b, T c) { base##3 r = {a, b, c}; return r; } \
  static inline base##4 make_##base##4(T a, T b, T c, T d) {                               \
    base##4 r = {a, b, c, d};                                                             \
    return r;                                                                             \
  }
#endif

#define __HIPKFD_VEC_FAMILY(T, base) __HIPKFD_VEC_STRUCTS(T, base) __HIPKFD_VEC_MAKE(T, base)

__HIPKFD_VEC_FAMILY(signed char, char)
__HIPKFD_VEC_FAMILY(unsigned char, uchar)
__HIPKFD_VEC_FAMILY(short, short)
__HIPKFD_VEC_FAMILY(unsigned short, ushort)
__HIPKFD_VEC_FAMILY(int, int)
__HIPKFD_VEC_FAMILY(unsigned int, uint)
__HIPKFD_VEC_FAMILY(long, long)
__HIPKFD_VEC_FAMILY(unsigned long, ulong)
__HIPKFD_VEC_FAMILY(long long, longlong)
__HIPKFD_VEC_FAMILY(unsigned long long, ulonglong)
__HIPKFD_VEC_FAMILY(float, float)
__HIPKFD_VEC_FAMILY(double, double)

#if defined(__cplusplus)
/* Which types are HIP vectors, their element type and rank: drives the generic operators. */
template <class V> struct __hipkfd_vec_info {};
#define __HIPKFD_VEC_INFO(T, base)                                                         \
  template <> struct __hipkfd_vec_info<base##1> { typedef T type; static constexpr int rank = 1; }; \
  template <> struct __hipkfd_vec_info<base##2> { typedef T type; static constexpr int rank = 2; }; \
  template <> struct __hipkfd_vec_info<base##3> { typedef T type; static constexpr int rank = 3; }; \
  template <> struct __hipkfd_vec_info<base##4> { typedef T type; static constexpr int rank = 4; };
__HIPKFD_VEC_INFO(signed char, char)
__HIPKFD_VEC_INFO(unsigned char, uchar)
__HIPKFD_VEC_INFO(short, short)
__HIPKFD_VEC_INFO(unsigned short, ushort)
__HIPKFD_VEC_INFO(int, int)
__HIPKFD_VEC_INFO(unsigned int, uint)
__HIPKFD_VEC_INFO(long, long)
__HIPKFD_VEC_INFO(unsigned long, ulong)
__HIPKFD_VEC_INFO(long long, longlong)
__HIPKFD_VEC_INFO(unsigned long long, ulonglong)
__HIPKFD_VEC_INFO(float, float)
__HIPKFD_VEC_INFO(double, double)

/* Element i of a vector. The members x, y, z, w are consecutive elements of one type with no
 * padding between them (the struct layout above guarantees it). */
template <class V>
__HIPKFD_VEC_HD__ typename __hipkfd_vec_info<V>::type &__hipkfd_lane(V &v, int i) {
  return (&v.x)[i];
}
template <class V>
__HIPKFD_VEC_HD__ const typename __hipkfd_vec_info<V>::type &__hipkfd_lane(const V &v, int i) {
  return (&v.x)[i];
}

/* Operator families. V is deduced from a vector operand; the scalar operand is a non-deduced
 * element type, so `v * 2` converts 2 to the element type as it would for a scalar. */
#define __HIPKFD_VEC_ENABLE(V) typename __hipkfd_vec_info<V>::type
#define __HIPKFD_VEC_INT_ONLY(V)                                                           \
  typename std::enable_if<std::is_integral<typename __hipkfd_vec_info<V>::type>::value, V>::type

#define __HIPKFD_VEC_BINOP(op, ret)                                                        \
  template <class V>                                                                      \
  __HIPKFD_VEC_HD__ ret operator op##=(V &a, const V &b) {                                 \
    for (int i = 0; i < __hipkfd_vec_info<V>::rank; ++i) __hipkfd_lane(a, i) op## = __hipkfd_lane(b, i); \
    return a;                                                                             \
  }                                                                                       \
  template <class V>                                                                      \
  __HIPKFD_VEC_HD__ ret operator op(V a, const V &b) { return a op## = b; }               \
  template <class V>                                                                      \
  __HIPKFD_VEC_HD__ ret operator op(V a, __HIPKFD_VEC_ENABLE(V) s) { return a op## = V(s); } \
  template <class V>                                                                      \
  __HIPKFD_VEC_HD__ ret operator op(__HIPKFD_VEC_ENABLE(V) s, const V &b) {                \
    V a(s);                                                                               \
    return a op## = b;                                                                    \
  }

/* `vector op= scalar` applies the scalar to every lane. AMD's header accepts it for + - * /
 * only (its scalar-to-vector constructor is explicit); hipkfd also accepts the remainder,
 * bitwise and shift forms, a superset that existing code here relies on. */
#define __HIPKFD_VEC_SCALAR_ASSIGN(op, ret)                                                \
  template <class V>                                                                      \
  __HIPKFD_VEC_HD__ ret operator op##=(V &a, __HIPKFD_VEC_ENABLE(V) s) {                   \
    for (int i = 0; i < __hipkfd_vec_info<V>::rank; ++i) __hipkfd_lane(a, i) op## = s;    \
    return a;                                                                             \
  }

/* The return type doubles as the SFINAE guard: arithmetic for every vector, bitwise ones for
 * integer elements only. */
#define __HIPKFD_VEC_ANY_RET typename std::enable_if<(__hipkfd_vec_info<V>::rank > 0), V>::type
#define __HIPKFD_VEC_INT_RET __HIPKFD_VEC_INT_ONLY(V)

__HIPKFD_VEC_BINOP(+, __HIPKFD_VEC_ANY_RET)
__HIPKFD_VEC_BINOP(-, __HIPKFD_VEC_ANY_RET)
__HIPKFD_VEC_BINOP(*, __HIPKFD_VEC_ANY_RET)
__HIPKFD_VEC_BINOP(/, __HIPKFD_VEC_ANY_RET)
__HIPKFD_VEC_BINOP(%, __HIPKFD_VEC_INT_RET)
__HIPKFD_VEC_BINOP(&, __HIPKFD_VEC_INT_RET)
__HIPKFD_VEC_BINOP(|, __HIPKFD_VEC_INT_RET)
__HIPKFD_VEC_BINOP(^, __HIPKFD_VEC_INT_RET)
__HIPKFD_VEC_BINOP(<<, __HIPKFD_VEC_INT_RET)
__HIPKFD_VEC_BINOP(>>, __HIPKFD_VEC_INT_RET)
__HIPKFD_VEC_SCALAR_ASSIGN(+, __HIPKFD_VEC_ANY_RET)
__HIPKFD_VEC_SCALAR_ASSIGN(-, __HIPKFD_VEC_ANY_RET)
__HIPKFD_VEC_SCALAR_ASSIGN(*, __HIPKFD_VEC_ANY_RET)
__HIPKFD_VEC_SCALAR_ASSIGN(/, __HIPKFD_VEC_ANY_RET)
__HIPKFD_VEC_SCALAR_ASSIGN(%, __HIPKFD_VEC_INT_RET)
__HIPKFD_VEC_SCALAR_ASSIGN(&, __HIPKFD_VEC_INT_RET)
__HIPKFD_VEC_SCALAR_ASSIGN(|, __HIPKFD_VEC_INT_RET)
__HIPKFD_VEC_SCALAR_ASSIGN(^, __HIPKFD_VEC_INT_RET)
__HIPKFD_VEC_SCALAR_ASSIGN(<<, __HIPKFD_VEC_INT_RET)
__HIPKFD_VEC_SCALAR_ASSIGN(>>, __HIPKFD_VEC_INT_RET)

template <class V> __HIPKFD_VEC_HD__ __HIPKFD_VEC_ANY_RET operator+(const V &a) { return a; }
/* Negation needs a signed element type (AMD's header: unsigned vectors have no unary minus). */
template <class V>
__HIPKFD_VEC_HD__ typename std::enable_if<std::is_signed<typename __hipkfd_vec_info<V>::type>::value, V>::type
operator-(V a) {
  for (int i = 0; i < __hipkfd_vec_info<V>::rank; ++i) __hipkfd_lane(a, i) = -__hipkfd_lane(a, i);
  return a;
}
template <class V> __HIPKFD_VEC_HD__ __HIPKFD_VEC_INT_RET operator~(V a) {
  for (int i = 0; i < __hipkfd_vec_info<V>::rank; ++i) __hipkfd_lane(a, i) = ~__hipkfd_lane(a, i);
  return a;
}
template <class V> __HIPKFD_VEC_HD__ __HIPKFD_VEC_ANY_RET &operator++(V &a) {
  a += 1;
  return a;
}
template <class V> __HIPKFD_VEC_HD__ __HIPKFD_VEC_ANY_RET &operator--(V &a) {
  a -= 1;
  return a;
}
template <class V> __HIPKFD_VEC_HD__ __HIPKFD_VEC_ANY_RET operator++(V &a, int) {
  V old = a;
  a += 1;
  return old;
}
template <class V> __HIPKFD_VEC_HD__ __HIPKFD_VEC_ANY_RET operator--(V &a, int) {
  V old = a;
  a -= 1;
  return old;
}
template <class V>
__HIPKFD_VEC_HD__ typename std::enable_if<(__hipkfd_vec_info<V>::rank > 0), bool>::type
operator==(const V &a, const V &b) {
  for (int i = 0; i < __hipkfd_vec_info<V>::rank; ++i)
    if (!(__hipkfd_lane(a, i) == __hipkfd_lane(b, i))) return false;
  return true;
}
template <class V>
__HIPKFD_VEC_HD__ typename std::enable_if<(__hipkfd_vec_info<V>::rank > 0), bool>::type
operator!=(const V &a, const V &b) {
  return !(a == b);
}
/* A vector compared with a scalar compares every lane with it (AMD's header turns the scalar
 * into a vector of that value first). */
template <class V>
__HIPKFD_VEC_HD__ typename std::enable_if<(__hipkfd_vec_info<V>::rank > 0), bool>::type
operator==(const V &a, __HIPKFD_VEC_ENABLE(V) s) {
  return a == V(s);
}
template <class V>
__HIPKFD_VEC_HD__ typename std::enable_if<(__hipkfd_vec_info<V>::rank > 0), bool>::type
operator==(__HIPKFD_VEC_ENABLE(V) s, const V &b) {
  return V(s) == b;
}
template <class V>
__HIPKFD_VEC_HD__ typename std::enable_if<(__hipkfd_vec_info<V>::rank > 0), bool>::type
operator!=(const V &a, __HIPKFD_VEC_ENABLE(V) s) {
  return !(a == V(s));
}
template <class V>
__HIPKFD_VEC_HD__ typename std::enable_if<(__hipkfd_vec_info<V>::rank > 0), bool>::type
operator!=(__HIPKFD_VEC_ENABLE(V) s, const V &b) {
  return !(V(s) == b);
}
#endif /* __cplusplus */

#endif /* HIPKFD_AMD_DETAIL_AMD_HIP_VECTOR_TYPES_H */
