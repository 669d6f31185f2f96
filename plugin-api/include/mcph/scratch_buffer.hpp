// mcph::scratch — one retained block per thread for the transient bytes of a message: the text a
// message is serialised into before it is sent, the padded copy a message is parsed from.
//
// Why: on the machines we measure (VMs), a fresh large buffer costs more than what is done with it.
// glibc hands a freed block of a megabyte back to the kernel (munmap, or trimming the heap top), so
// the next message's buffer is new memory again: 256 page faults per MiB, ~10 µs each under the
// hypervisor. A 1 MiB tool call paid that four times per call, which made it ~10x the floor's CPU
// (issue #16). Keeping the block — up to kRetainBytes, one per thread that sends or parses — lets the
// next message reuse warm pages; a larger block is given back after use, so a thread retains at most
// kRetainBytes however large the messages it handled. A second, smaller block per thread serves the
// stacks RapidJSON's writers and tree builders keep while they work (each was a malloc and a free per
// message, plus the `new` of an allocator object: ~8 of the ~23 allocations of a stdio tool call).
//
// Rules for users: a block lives and dies inside one scope on one thread (a local buffer), never
// crossing threads. Nesting is fine: while this thread's block is lent, further requests are plain
// malloc/free. Header-only, for the host and the plugins alike.
#ifndef MCPH_SCRATCH_BUFFER_HPP
#define MCPH_SCRATCH_BUFFER_HPP

#include <rapidjson/stringbuffer.h>

#include <cstddef>
#include <cstdlib>

namespace mcph::scratch {

// Which of a thread's two retained blocks: the bytes of a message (Text), or the stack a SAX
// consumer keeps while it works — a writer's nesting levels, a tree builder's pending values
// (Stack). Two, because a parse holds its message's padded copy in the Text block while its tree
// builder needs a stack, and a writer fills a Text buffer while its levels need one.
enum class Kind { Text, Stack };

// Above this a block is not kept (memory bound per thread).
inline constexpr std::size_t kRetainBytes = std::size_t{4} << 20;
inline constexpr std::size_t kRetainStackBytes = std::size_t{64} << 10;
template <Kind K>
inline constexpr std::size_t kRetainBytesOf = K == Kind::Text ? kRetainBytes : kRetainStackBytes;

struct ThreadBlock {
    void* block = nullptr;
    std::size_t capacity = 0;
    bool lent = false;
    ThreadBlock() = default;
    ThreadBlock(const ThreadBlock&) = delete;
    ThreadBlock& operator=(const ThreadBlock&) = delete;
    ~ThreadBlock() { std::free(block); }
};

template <Kind K = Kind::Text>
inline ThreadBlock& thread_block() noexcept {
    thread_local ThreadBlock block;
    return block;
}

// Memory for one transient buffer: this thread's retained block when it is free and `size` fits the
// retention bound, else malloc. Null only when malloc fails.
template <Kind K = Kind::Text>
inline void* acquire(std::size_t size) noexcept {
    ThreadBlock& t = thread_block<K>();
    if (t.lent || size > kRetainBytesOf<K>) return std::malloc(size);
    if (t.capacity < size) {
        std::free(t.block);
        t.block = std::malloc(size);
        t.capacity = t.block ? size : 0;
        if (!t.block) return nullptr;
    }
    t.lent = true;
    return t.block;
}

// Grows memory from acquire() (realloc semantics: on failure `p` is still valid and still owned).
template <Kind K = Kind::Text>
inline void* grow(void* p, std::size_t size) noexcept {
    ThreadBlock& t = thread_block<K>();
    if (!t.lent || p != t.block) return std::realloc(p, size);
    if (size <= t.capacity) return p;
    void* q = std::realloc(p, size);
    if (!q) return nullptr;
    t.block = q;
    t.capacity = size;
    return q;
}

// Gives memory from acquire()/grow() back: the thread's block is kept (when within the bound).
template <Kind K = Kind::Text>
inline void release(void* p) noexcept {
    if (!p) return;
    ThreadBlock& t = thread_block<K>();
    if (!t.lent || p != t.block) return std::free(p);
    t.lent = false;
    if (t.capacity > kRetainBytesOf<K>) {
        std::free(t.block);
        t.block = nullptr;
        t.capacity = 0;
    }
}

// RapidJSON's Allocator concept over acquire/grow/release.
template <Kind K>
class BasicAllocator {
public:
    static const bool kNeedFree = true;
    void* Malloc(std::size_t size) { return size ? acquire<K>(size) : nullptr; }
    void* Realloc(void* p, std::size_t /*old_size*/, std::size_t size) {
        if (!p) return Malloc(size);
        if (!size) {
            release<K>(p);
            return nullptr;
        }
        return grow<K>(p, size);
    }
    static void Free(void* p) { release<K>(p); }
};
using Allocator = BasicAllocator<Kind::Text>;
// For the stack of a RapidJSON Writer or of a Document used as a SAX handler. Passing it by
// pointer also spares RapidJSON the `new` of an allocator object of its own per stack.
using StackAllocator = BasicAllocator<Kind::Stack>;

template <Kind K = Kind::Text>
inline BasicAllocator<K>& shared_allocator() noexcept {
    static BasicAllocator<K> allocator;  // stateless: the state is per thread
    return allocator;
}

// A rapidjson::StringBuffer whose storage is this thread's retained block. A local only (see above).
class StringBuffer : public rapidjson::GenericStringBuffer<rapidjson::UTF8<>, Allocator> {
public:
    // The allocator is passed so RapidJSON does not `new` one of its own per buffer.
    StringBuffer() : rapidjson::GenericStringBuffer<rapidjson::UTF8<>, Allocator>(&shared_allocator()) {}
};

}  // namespace mcph::scratch

#endif  // MCPH_SCRATCH_BUFFER_HPP
