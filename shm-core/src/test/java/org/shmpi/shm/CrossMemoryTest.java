package org.shmpi.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;

import org.agrona.BufferUtil;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code process_vm_readv} through JNA, on this process's own memory (the kernel takes the same
 * path as for a peer's): every byte of a read arrives, and the failures a receiver must tell
 * apart come back as their errno, not as exceptions or crashes.
 */
class CrossMemoryTest
{
    private CrossMemory memory;

    @BeforeEach
    void open()
    {
        memory = CrossMemory.open();
        assumeTrue(memory != null, "process_vm_readv refused here: probe=" + CrossMemory.probe());
    }

    private static long self()
    {
        return ProcessHandle.current().pid();
    }

    @Test
    void readsEveryByte()
    {
        for (final int length : new int[] {1, 4095, 4097, 1 << 20, (4 << 20) + 3})
        {
            final ByteBuffer from = ByteBuffer.allocateDirect(length);
            final ByteBuffer to = ByteBuffer.allocateDirect(length + 1);
            for (int i = 0; i < length; i++)
            {
                from.put(i, (byte)(i * 7 + length));
            }
            to.put(length, (byte)0x5A);
            assertEquals(0, memory.read(self(), BufferUtil.address(to), BufferUtil.address(from), length));
            assertEquals(-1, from.mismatch(to.slice(0, length)), "length " + length);
            assertEquals((byte)0x5A, to.get(length), "nothing written past the end");
        }
    }

    @Test
    void aGoneProcessIsEsrch() throws Exception
    {
        final Process exited = new ProcessBuilder("true").start();
        assertEquals(0, exited.waitFor());
        final ByteBuffer b = ByteBuffer.allocateDirect(64);
        assertEquals(CrossMemory.ESRCH, memory.read(exited.pid(), BufferUtil.address(b), BufferUtil.address(b), 64));
        assertEquals("ESRCH", CrossMemory.errnoName(CrossMemory.ESRCH));
    }

    @Test
    void anUnmappedAddressIsEfault()
    {
        final ByteBuffer b = ByteBuffer.allocateDirect(64);
        assertEquals(CrossMemory.EFAULT, memory.read(self(), BufferUtil.address(b), 4096, 64));
        assertEquals(CrossMemory.EFAULT, memory.read(self(), 4096, BufferUtil.address(b), 64));
    }
}
