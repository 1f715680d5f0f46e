/*
 * The kernel's common bit operations and atomics (include/asm-generic/bitops, asm/bitops.h,
 * lib/find_bit.c, include/linux/bitmap.h, asm/atomic.h, include/linux/atomic), for the
 * harnesses' stubs (classic_stubs.h, gmap_stubs.h): what a tree's code may call without the
 * harness naming it. One thread runs the kernel's code here, so each operation is the plain
 * memory operation with the kernel's meaning and result; the atomicity is not needed. This file
 * holds no kernel code. conformance/engines/linux/README.md lists them in its Stubs tables.
 */
#ifndef CMMA_KERNEL_BITOPS_H
#define CMMA_KERNEL_BITOPS_H

#ifndef BITS_PER_LONG
#define BITS_PER_LONG 64
#define BITS_PER_BYTE 8
#endif
#define BIT_WORD(nr) ((nr) / BITS_PER_LONG)
#define BIT_MASK(nr) (1UL << ((nr) % BITS_PER_LONG))
#define BITS_TO_LONGS(n) (((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define DECLARE_BITMAP(name, bits) unsigned long name[BITS_TO_LONGS(bits)]

/* Bits: set, clear, change, test, and their test-and-* forms; the __ forms are the same here. */
static inline void set_bit(unsigned long nr, volatile unsigned long *addr)
{ addr[BIT_WORD(nr)] |= BIT_MASK(nr); }
static inline void clear_bit(unsigned long nr, volatile unsigned long *addr)
{ addr[BIT_WORD(nr)] &= ~BIT_MASK(nr); }
static inline void change_bit(unsigned long nr, volatile unsigned long *addr)
{ addr[BIT_WORD(nr)] ^= BIT_MASK(nr); }
static inline int test_bit(unsigned long nr, const volatile unsigned long *addr)
{ return (addr[BIT_WORD(nr)] & BIT_MASK(nr)) != 0; }
static inline int test_and_set_bit(unsigned long nr, volatile unsigned long *addr)
{ int old = test_bit(nr, addr); set_bit(nr, addr); return old; }
static inline int test_and_clear_bit(unsigned long nr, volatile unsigned long *addr)
{ int old = test_bit(nr, addr); clear_bit(nr, addr); return old; }
static inline int test_and_change_bit(unsigned long nr, volatile unsigned long *addr)
{ int old = test_bit(nr, addr); change_bit(nr, addr); return old; }
#define __set_bit(nr, addr) set_bit((nr), (addr))
#define __clear_bit(nr, addr) clear_bit((nr), (addr))
#define __change_bit(nr, addr) change_bit((nr), (addr))
#define __test_and_set_bit(nr, addr) test_and_set_bit((nr), (addr))
#define __test_and_clear_bit(nr, addr) test_and_clear_bit((nr), (addr))
#define __test_and_change_bit(nr, addr) test_and_change_bit((nr), (addr))
#define set_bit_unlock(nr, addr) set_bit((nr), (addr))
#define clear_bit_unlock(nr, addr) clear_bit((nr), (addr))
#define __clear_bit_unlock(nr, addr) clear_bit((nr), (addr))
#define test_and_set_bit_lock(nr, addr) test_and_set_bit((nr), (addr))
#define arch_test_bit(nr, addr) test_bit((nr), (addr))
/* s390's inverted bit numbering (asm/bitops.h: bit 0 is the leftmost of the word). */
#define set_bit_inv(nr, addr) set_bit((nr) ^ (BITS_PER_LONG - 1), (addr))
#define clear_bit_inv(nr, addr) clear_bit((nr) ^ (BITS_PER_LONG - 1), (addr))
#define test_bit_inv(nr, addr) test_bit((nr) ^ (BITS_PER_LONG - 1), (addr))
#define test_and_clear_bit_inv(nr, addr) test_and_clear_bit((nr) ^ (BITS_PER_LONG - 1), (addr))

/* lib/find_bit.c: the first set (or clear) bit at or after offset, else size. */
static inline unsigned long find_next_bit(const unsigned long *addr, unsigned long size,
					  unsigned long offset)
{
	for (; offset < size; offset++)
		if (test_bit(offset, addr))
			return offset;
	return size;
}
static inline unsigned long find_next_zero_bit(const unsigned long *addr, unsigned long size,
					       unsigned long offset)
{
	for (; offset < size; offset++)
		if (!test_bit(offset, addr))
			return offset;
	return size;
}
#define find_first_bit(addr, size) find_next_bit((addr), (size), 0)
#define find_first_zero_bit(addr, size) find_next_zero_bit((addr), (size), 0)
#define for_each_set_bit(bit, addr, size) \
	for ((bit) = find_first_bit((addr), (size)); (bit) < (size); \
	     (bit) = find_next_bit((addr), (size), (bit) + 1))
#define for_each_clear_bit(bit, addr, size) \
	for ((bit) = find_first_zero_bit((addr), (size)); (bit) < (size); \
	     (bit) = find_next_zero_bit((addr), (size), (bit) + 1))

/* include/linux/bitmap.h: whole bitmaps of nbits bits. */
static inline void bitmap_zero(unsigned long *dst, unsigned int nbits)
{ memset(dst, 0, BITS_TO_LONGS(nbits) * sizeof(unsigned long)); }
static inline void bitmap_fill(unsigned long *dst, unsigned int nbits)
{ unsigned int i; for (i = 0; i < nbits; i++) set_bit(i, dst); }
static inline void bitmap_set(unsigned long *map, unsigned int start, unsigned int n)
{ while (n--) set_bit(start++, map); }
static inline void bitmap_clear(unsigned long *map, unsigned int start, unsigned int n)
{ while (n--) clear_bit(start++, map); }
static inline unsigned int bitmap_weight(const unsigned long *src, unsigned int nbits)
{ unsigned int i, w = 0; for (i = 0; i < nbits; i++) w += test_bit(i, src); return w; }
static inline int bitmap_empty(const unsigned long *src, unsigned int nbits)
{ return find_first_bit(src, nbits) >= nbits; }
static inline int bitmap_full(const unsigned long *src, unsigned int nbits)
{ return find_first_zero_bit(src, nbits) >= nbits; }

/* Atomics (asm/atomic.h, include/linux/atomic): atomic_t of an int, atomic64_t of a long. */
typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic64_t;
#define ATOMIC_INIT(i) { (i) }
#define ATOMIC64_INIT(i) { (i) }
#define CMMA_ATOMIC_OPS(p, T)                                                          \
static inline T p##_read(const p##_t *v) { return v->counter; }                       \
static inline void p##_set(p##_t *v, T i) { v->counter = i; }                         \
static inline void p##_add(T i, p##_t *v) { v->counter += i; }                         \
static inline void p##_sub(T i, p##_t *v) { v->counter -= i; }                         \
static inline void p##_inc(p##_t *v) { v->counter++; }                                 \
static inline void p##_dec(p##_t *v) { v->counter--; }                                 \
static inline T p##_add_return(T i, p##_t *v) { return v->counter += i; }             \
static inline T p##_sub_return(T i, p##_t *v) { return v->counter -= i; }             \
static inline T p##_inc_return(p##_t *v) { return ++v->counter; }                     \
static inline T p##_dec_return(p##_t *v) { return --v->counter; }                     \
static inline T p##_fetch_add(T i, p##_t *v) { T o = v->counter; v->counter += i; return o; } \
static inline T p##_fetch_sub(T i, p##_t *v) { T o = v->counter; v->counter -= i; return o; } \
static inline T p##_fetch_or(T i, p##_t *v) { T o = v->counter; v->counter |= i; return o; }  \
static inline T p##_fetch_and(T i, p##_t *v) { T o = v->counter; v->counter &= i; return o; } \
static inline void p##_or(T i, p##_t *v) { v->counter |= i; }                          \
static inline void p##_and(T i, p##_t *v) { v->counter &= i; }                         \
static inline void p##_andnot(T i, p##_t *v) { v->counter &= ~i; }                     \
static inline int p##_inc_and_test(p##_t *v) { return ++v->counter == 0; }            \
static inline int p##_dec_and_test(p##_t *v) { return --v->counter == 0; }            \
static inline int p##_sub_and_test(T i, p##_t *v) { return (v->counter -= i) == 0; } \
static inline T p##_xchg(p##_t *v, T i) { T o = v->counter; v->counter = i; return o; } \
static inline T p##_cmpxchg(p##_t *v, T old, T new)                                    \
{ T o = v->counter; if (o == old) v->counter = new; return o; }                         \
static inline int p##_try_cmpxchg(p##_t *v, T *old, T new)                             \
{ if (v->counter == *old) { v->counter = new; return 1; } *old = v->counter; return 0; } \
static inline T p##_dec_if_positive(p##_t *v)                                          \
{ T n = v->counter - 1; if (n >= 0) v->counter = n; return n; }
CMMA_ATOMIC_OPS(atomic, int)
CMMA_ATOMIC_OPS(atomic64, long)
#undef CMMA_ATOMIC_OPS
/* The generic exchanges of a scalar (asm/cmpxchg.h). */
#define xchg(ptr, v) ({ __typeof__(*(ptr)) _o = *(ptr); *(ptr) = (v); _o; })
#define cmpxchg(ptr, old, new) ({ __typeof__(*(ptr)) _o = *(ptr); \
	if (_o == (old)) *(ptr) = (new); _o; })

#endif /* CMMA_KERNEL_BITOPS_H */
