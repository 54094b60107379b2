package org.shmpi.types;

/**
 * Where a message's bytes lie in user memory, and how to copy them to and from their packed form.
 * Every copy of message data in the engines goes through a layout: eager copy-in and copy-out,
 * fragments, unexpected messages, buffered mode and the single copy from a peer's heap. Today
 * there is one, {@link #CONTIGUOUS}; derived datatypes (a type map repeated {@code count} times)
 * plug in as further implementations without touching the protocols.
 *
 * <p>The packed form is what travels: the message's bytes in type-map order, contiguous. A
 * message of {@code n} packed bytes has packed offsets {@code [0, n)}. The user's buffer is given
 * in {@code Unsafe} addressing: {@code base} an array (with {@code offset} a byte offset including
 * the array base offset) or null (with {@code offset} an absolute address).
 *
 * <p>Implementations are immutable and thread-safe; they are stateless per call, so a fragment of
 * a message can be packed or unpacked at any packed offset, in any order.
 */
public interface DataLayout
{
    /** Bytes in order, no gaps: packing is a plain copy. */
    DataLayout CONTIGUOUS = ContiguousLayout.INSTANCE;

    /**
     * Copies packed bytes {@code [from, from + length)} of the message whose user data starts at
     * {@code base}/{@code offset} to {@code dstBase}/{@code dstOffset} (contiguous).
     */
    void pack(Object base, long offset, long from, Object dstBase, long dstOffset, long length);

    /**
     * Copies {@code length} packed bytes from {@code srcBase}/{@code srcOffset} (contiguous) into
     * the user's memory at {@code base}/{@code offset}, as packed bytes {@code [from, from + length)}.
     */
    void unpack(Object srcBase, long srcOffset, long length, Object base, long offset, long from);

    /**
     * Whether the user's bytes are the packed bytes (packed offset {@code k} is at
     * {@code offset + k}): then a peer may copy them directly out of shared memory.
     */
    boolean isContiguous();
}
