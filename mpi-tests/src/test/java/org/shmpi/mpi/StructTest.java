package org.shmpi.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmpi.junit.MpiTest;

import mpi.DoubleComplex;
import mpi.DoubleInt;
import mpi.FloatComplex;
import mpi.Int2;
import mpi.MPI;
import mpi.Struct;

/** User struct types and the pair types, over direct buffers and byte arrays, between ranks. */
@MpiTest(np = {1, 2})
class StructTest
{
    @AfterEach
    void nothingLeft()
    {
        Expect.nothingLeftUnreceived();
    }

    /** {double x, double y, int id, char tag[3]}: C layout, extent padded to 32. */
    static final class Particle extends Struct
    {
        final int x = addDouble();
        final int y = addDouble();
        final int id = addInt();
        final int tag = addChar(3);

        @Override
        protected Data newData()
        {
            return new Data();
        }

        final class Data extends Struct.Data
        {
            double x()
            {
                return getDouble(x);
            }

            int id()
            {
                return getInt(id);
            }

            char tag(final int i)
            {
                return getChar(tag, i);
            }

            void set(final double vx, final double vy, final int vid, final String t)
            {
                putDouble(x, vx);
                putDouble(y, vy);
                putInt(id, vid);
                for (int i = 0; i < 3; i++)
                {
                    putChar(tag, i, t.charAt(i));
                }
            }
        }
    }

    /** {Particle p; long n}: a struct inside a struct. */
    static final class Wrapped extends Struct
    {
        final Particle particle;
        final int p;
        final int n;

        Wrapped(final Particle particle)
        {
            this.particle = particle;
            p = addStruct(particle);
            n = addLong();
        }

        @Override
        protected Data newData()
        {
            return new Data();
        }

        final class Data extends Struct.Data
        {
            Particle.Data particle()
            {
                return getData(particle, p);
            }

            long n()
            {
                return getLong(n);
            }

            void n(final long v)
            {
                putLong(n, v);
            }
        }
    }

    @Test
    void layoutIsTheCompilersAndItemsTravelBetweenRanks()
    {
        final Particle type = new Particle();
        assertEquals(0, type.x);
        assertEquals(8, type.y);
        assertEquals(16, type.id);
        assertEquals(20, type.tag);
        assertEquals(26, type.getOffset(), "the end of the fields, before the extent is padded");
        assertEquals(32, type.getExtent());
        assertEquals(26, type.getType().getSize(), "a struct's size counts bytes");
        final int rank = MPI.COMM_WORLD.getRank();
        final int size = MPI.COMM_WORLD.getSize();
        final ByteBuffer out = MPI.newByteBuffer(4 * 32);
        for (int i = 0; i < 4; i++)
        {
            final Particle.Data d = type.getData(out, i);
            d.set(rank + i / 2.0, -i, rank * 10 + i, "ab" + i);
        }
        final byte[] in = new byte[4 * 32];
        MPI.COMM_WORLD.sendRecv(out, 4, type.getType(), (rank + 1) % size, 1, in, 4, type.getType(),
            (rank + size - 1) % size, 1);
        final int prev = (rank + size - 1) % size;
        for (int i = 0; i < 4; i++)
        {
            final Particle.Data d = type.getData(in, i);
            assertEquals(prev + i / 2.0, d.x());
            assertEquals(prev * 10 + i, d.id());
            assertEquals('a', d.tag(0));
            assertEquals((char)('0' + i), d.tag(2));
        }
        assertThrows(IllegalStateException.class, type::addInt, "no field after the type is in use");
    }

    @Test
    void structsInsideStructs()
    {
        final Particle particle = new Particle();
        final Wrapped w = new Wrapped(particle);
        assertEquals(0, w.p);
        assertEquals(32, w.n);
        assertEquals(40, w.getExtent());
        final byte[] buf = new byte[2 * 40];
        final Wrapped.Data second = w.getData(buf, 1);
        second.n(77);
        second.particle().set(1.5, 2.5, 9, "xyz");
        final byte[] got = new byte[2 * 40];
        final int rank = MPI.COMM_WORLD.getRank();
        final int size = MPI.COMM_WORLD.getSize();
        MPI.COMM_WORLD.sendRecv(buf, 2, w.getType(), (rank + 1) % size, 2, got, 2, w.getType(),
            (rank + size - 1) % size, 2);
        final Wrapped.Data back = w.getData(got, 1);
        assertEquals(77, back.n());
        assertEquals(1.5, back.particle().x());
        assertEquals(9, back.particle().id());
        assertEquals('z', back.particle().tag(2));
    }

    @Test
    void complexNumbersThroughTheirViews()
    {
        final int rank = MPI.COMM_WORLD.getRank();
        final int size = MPI.COMM_WORLD.getSize();
        final ByteBuffer out = MPI.newByteBuffer(3 * 16);
        for (int i = 0; i < 3; i++)
        {
            final DoubleComplex z = DoubleComplex.get(out, i);
            z.putReal(rank + i);
            z.putImag(-i - 0.5);
        }
        final double[] in = new double[6];
        MPI.COMM_WORLD.sendRecv(out, 3, MPI.DOUBLE_COMPLEX, (rank + 1) % size, 4, in, 3, MPI.DOUBLE_COMPLEX,
            (rank + size - 1) % size, 4);
        final int prev = (rank + size - 1) % size;
        for (int i = 0; i < 3; i++)
        {
            assertEquals(prev + i, DoubleComplex.get(in, i).getReal());
            assertEquals(-i - 0.5, DoubleComplex.get(in, i).getImag());
        }
        final float[] f = new float[4];
        final FloatComplex w = FloatComplex.get(f, 1);
        w.putReal(3f);
        w.putImag(4f);
        assertEquals(3f, f[2]);
        assertEquals(4f, f[3]);
        assertEquals(4f, FloatComplex.get(w.getBuffer(), 1).getImag());
    }

    @Test
    void pairTypes()
    {
        assertEquals(16, MPI.doubleInt.getExtent());
        assertEquals(8, MPI.int2.getExtent());
        assertEquals(8, MPI.shortInt.getExtent());
        assertEquals(16, MPI.longInt.getExtent());
        assertEquals(8, MPI.floatInt.getExtent());
        assertEquals(MPI.DOUBLE_INT, MPI.doubleInt.getType());
        assertEquals(MPI.SHORT_INT, MPI.shortInt.getType());
        assertEquals(MPI.INT2, MPI.int2.getType());
        final ByteBuffer pairs = MPI.newByteBuffer(3 * 16);
        final int rank = MPI.COMM_WORLD.getRank();
        for (int i = 0; i < 3; i++)
        {
            final DoubleInt.Data d = MPI.doubleInt.getData(pairs, i);
            d.putValue(rank + 0.25 * i);
            d.putIndex(100 * rank + i);
        }
        final ByteBuffer got = MPI.newByteBuffer(3 * 16);
        final int size = MPI.COMM_WORLD.getSize();
        MPI.COMM_WORLD.sendRecv(pairs, 3, MPI.doubleInt.getType(), (rank + 1) % size, 3, got, 3,
            MPI.DOUBLE_INT, (rank + size - 1) % size, 3);
        final int prev = (rank + size - 1) % size;
        for (int i = 0; i < 3; i++)
        {
            final DoubleInt.Data d = MPI.doubleInt.getData(got, i);
            assertEquals(prev + 0.25 * i, d.getValue());
            assertEquals(100 * prev + i, d.getIndex());
        }
        final byte[] raw = new byte[8];
        final Int2.Data two = MPI.int2.getData(raw);
        two.putValue(5);
        two.putIndex(6);
        assertEquals(5, two.getValue());
        final Int2.Data again = MPI.int2.getData(ByteBuffer.wrap(raw));
        assertEquals(6, again.getIndex());
    }
}
