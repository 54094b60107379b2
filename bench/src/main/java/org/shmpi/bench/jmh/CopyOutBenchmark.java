package org.shmpi.bench.jmh;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** Copy-out of a received payload: one Unsafe.copyMemory from off-heap memory into a byte[]. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
@State(Scope.Thread)
public class CopyOutBenchmark
{
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);

    @Param({"64", "4096", "65536"})
    public int size;

    private ByteBuffer source;
    private long sourceAddress;
    private byte[] destination;

    @Setup
    public void setup()
    {
        source = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++)
        {
            source.put(i, (byte)(i * 31 + 1));
        }
        sourceAddress = BufferUtil.address(source);
        destination = new byte[size];
    }

    @Benchmark
    public byte[] copyOut()
    {
        UnsafeApi.copyMemory(null, sourceAddress, destination, BYTES, size);
        return destination;
    }
}
