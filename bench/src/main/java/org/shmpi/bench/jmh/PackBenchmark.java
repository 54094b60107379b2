package org.shmpi.bench.jmh;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import mpi.Datatype;
import mpi.MPI;

/**
 * {@code Comm.pack} and {@code Comm.unpack} of three derived types, through the public API of a
 * singleton job (one op = one call over the whole type). The same types, sizes and memory
 * layout are in {@code bench/native/pack_lite.c} (MPI_Pack/MPI_Unpack); {@code bench/pack-compare}
 * runs both in one run and prints GB/s of packed bytes and their ratio.
 * <ul>
 * <li>{@code column}: {@code createVector(2048, 1, 64, DOUBLE)}, one column of a row-major 2048 x 64
 *     matrix of doubles: 2048 blocks of 8 bytes, 16 KiB packed.</li>
 * <li>{@code indexed}: {@code createIndexed} of 1024 blocks of ints, block i of 1 + i % 8 ints,
 *     4 ints apart: 18 KiB packed.</li>
 * <li>{@code struct}: 512 particles {int id at 0; double x, y, z at 8; float mass at 32},
 *     extent 40: 16 KiB packed.</li>
 * </ul>
 * {@code memory}: the user's data in a Java array ({@code double[]}, {@code int[]},
 * {@code byte[]}) or in a direct buffer; the packed side is always a {@code byte[]}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
@State(Scope.Thread)
public class PackBenchmark
{
    /** Rows of the column type's matrix; 64 doubles a row. */
    public static final int ROWS = 2048;
    public static final int COLUMNS = 64;
    public static final int BLOCKS = 1024;
    public static final int PARTICLES = 512;

    @Param({"column", "indexed", "struct"})
    public String type;

    @Param({"array", "direct"})
    public String memory;

    private Datatype datatype;
    private int count;
    private Object data;
    private byte[] packed;

    @Setup(Level.Trial)
    public void setup()
    {
        MPI.Init(new String[0]);
        final boolean direct = "direct".equals(memory);
        switch (type)
        {
            case "column":
                datatype = Datatype.createVector(ROWS, 1, COLUMNS, MPI.DOUBLE);
                count = 1;
                data = direct ? MPI.newDoubleBuffer(ROWS * COLUMNS) : new double[ROWS * COLUMNS];
                break;
            case "indexed":
                final int[] lengths = new int[BLOCKS];
                final int[] displacements = new int[BLOCKS];
                int at = 0;
                for (int i = 0; i < BLOCKS; i++)
                {
                    lengths[i] = 1 + i % 8;
                    displacements[i] = at;
                    at += lengths[i] + 4;
                }
                datatype = Datatype.createIndexed(lengths, displacements, MPI.INT);
                count = 1;
                data = direct ? MPI.newIntBuffer(at) : new int[at];
                break;
            case "struct":
                datatype = Datatype.createStruct(new int[] {1, 3, 1}, new int[] {0, 8, 32},
                    new Datatype[] {MPI.INT, MPI.DOUBLE, MPI.FLOAT});
                count = PARTICLES;
                data = direct ? ByteBuffer.allocateDirect(40 * PARTICLES).order(ByteOrder.nativeOrder())
                    : new byte[40 * PARTICLES];
                break;
            default:
                throw new IllegalArgumentException("type: " + type);
        }
        datatype.commit();
        packed = new byte[MPI.COMM_WORLD.packSize(count, datatype)];
        // Something other than zeros to move.
        MPI.COMM_WORLD.unpack(filled(packed.length), 0, data, count, datatype);
    }

    private static byte[] filled(final int n)
    {
        final byte[] b = new byte[n];
        for (int i = 0; i < n; i++)
        {
            b[i] = (byte)(i * 7 + 3);
        }
        return b;
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        datatype.free();
        MPI.Finalize();
    }

    @Benchmark
    public byte[] pack()
    {
        MPI.COMM_WORLD.pack(data, count, datatype, packed, 0);
        return packed;
    }

    @Benchmark
    public Object unpack()
    {
        MPI.COMM_WORLD.unpack(packed, 0, data, count, datatype);
        return data;
    }
}
