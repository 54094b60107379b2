package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import org.shmpi.shm.ErrorClass;

/**
 * A user struct type over a byte buffer, as in Open MPI's bindings: a subclass adds its fields
 * in its constructor ({@link #addInt()}, {@link #addDouble(int)}, {@link #addStruct}, ... each
 * returning the field's byte offset, aligned to the field's element size as a C compiler would),
 * and implements {@link #newData()} to return its {@link Data} view, whose accessors read and
 * write the fields of one item in a buffer. {@link #getType()} is the datatype of one item (made
 * and committed on first use; no field can be added after it), {@link #getExtent()} its extent
 * in bytes. Views work over direct {@link ByteBuffer}s (as in Open MPI) and over {@code byte[]}
 * (shmpi), in native byte order.
 */
public abstract class Struct
{
    private int extent;
    private int alignment = 1;
    private final List<Datatype> types = new ArrayList<>();
    private final List<Integer> offsets = new ArrayList<>();
    private final List<Integer> lengths = new ArrayList<>();
    private Datatype datatype;

    public Struct()
    {
    }

    /** The view of one item; a subclass returns its own {@link Data} subclass. */
    protected abstract Data newData();

    /** The extent of one item in bytes, padded to the largest alignment of its fields. */
    public final int getExtent()
    {
        commit();
        return extent;
    }

    /** The committed datatype of one item. */
    public final Datatype getType()
    {
        commit();
        return datatype;
    }

    /** The view of item 0 of {@code buffer}. */
    public final <T extends Data> T getData(final ByteBuffer buffer)
    {
        return getData(buffer, 0);
    }

    /** The view of item {@code index} of {@code buffer}. */
    @SuppressWarnings("unchecked")
    public final <T extends Data> T getData(final ByteBuffer buffer, final int index)
    {
        commit();
        final Data d = newData();
        d.buffer = buffer.order(ByteOrder.nativeOrder());
        d.offset = index * extent;
        return (T)d;
    }

    /** The view of item 0 of {@code buffer}. */
    public final <T extends Data> T getData(final byte[] buffer)
    {
        return getData(buffer, 0);
    }

    /** The view of item {@code index} of {@code buffer}. */
    public final <T extends Data> T getData(final byte[] buffer, final int index)
    {
        return getData(ByteBuffer.wrap(buffer), index);
    }

    /**
     * + The counterpart of {@link #setOffset}: the byte offset where the next field would start
     * before alignment (the end of the fields so far, or what {@code setOffset} moved it to).
     */
    public final int getOffset()
    {
        return extent;
    }

    /** Moves the end of the struct to byte {@code offset}: the next field starts there (aligned). */
    public final Struct setOffset(final int offset)
    {
        checkOpen();
        if (offset < 0)
        {
            throw new IllegalArgumentException("negative struct offset: " + offset);
        }
        extent = offset;
        return this;
    }

    public final int addByte()
    {
        return addByte(1);
    }

    public final int addByte(final int length)
    {
        return addField(MPI.BYTE, 1, 1, length);
    }

    public final int addChar()
    {
        return addChar(1);
    }

    public final int addChar(final int length)
    {
        return addField(MPI.CHAR, 2, 2, length);
    }

    public final int addShort()
    {
        return addShort(1);
    }

    public final int addShort(final int length)
    {
        return addField(MPI.SHORT, 2, 2, length);
    }

    public final int addInt()
    {
        return addInt(1);
    }

    public final int addInt(final int length)
    {
        return addField(MPI.INT, 4, 4, length);
    }

    public final int addLong()
    {
        return addLong(1);
    }

    public final int addLong(final int length)
    {
        return addField(MPI.LONG, 8, 8, length);
    }

    public final int addFloat()
    {
        return addFloat(1);
    }

    public final int addFloat(final int length)
    {
        return addField(MPI.FLOAT, 4, 4, length);
    }

    public final int addDouble()
    {
        return addDouble(1);
    }

    public final int addDouble(final int length)
    {
        return addField(MPI.DOUBLE, 8, 8, length);
    }

    /** A field holding one item of another struct. */
    public final int addStruct(final Struct struct)
    {
        return addStruct(struct, 1);
    }

    /** A field holding {@code length} items of another struct. */
    public final int addStruct(final Struct struct, final int length)
    {
        return addField(struct.getType(), struct.getExtent(), struct.alignment, length);
    }

    /** A field holding one item of {@code type} (its extent in bytes, aligned to at most 8). */
    public final int addData(final Datatype type)
    {
        return addData(type, 1);
    }

    /** A field holding {@code length} items of {@code type}. */
    public final int addData(final Datatype type, final int length)
    {
        MPI.checkDatatype(type);
        final int bytes = (int)type.map.extent();
        return addField(type, bytes, Math.max(1, Math.min(8, Integer.lowestOneBit(Math.max(1, bytes)))), length);
    }

    private int addField(final Datatype type, final int itemBytes, final int align, final int length)
    {
        checkOpen();
        if (length < 0)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_COUNT, "negative field length: " + length));
        }
        final int offset = (extent + align - 1) / align * align;
        types.add(type);
        offsets.add(offset);
        lengths.add(length);
        extent = offset + itemBytes * length;
        alignment = Math.max(alignment, align);
        return offset;
    }

    /**
     * The predefined type of the same layout, for the pair types (so that MPI.int2.getType() is MPI.INT2); else null.
     */
    Datatype namedType()
    {
        return null;
    }

    private void checkOpen()
    {
        if (datatype != null)
        {
            throw new IllegalStateException("struct fields cannot be added once its type is in use");
        }
    }

    private void commit()
    {
        if (datatype != null)
        {
            return;
        }
        extent = (extent + alignment - 1) / alignment * alignment;
        final int n = types.size();
        final int[] len = new int[n];
        final int[] off = new int[n];
        for (int i = 0; i < n; i++)
        {
            len[i] = lengths.get(i);
            off[i] = offsets.get(i);
        }
        final Datatype named = namedType();
        if (named != null)
        {
            datatype = named;
            return;
        }
        final Datatype s = Datatype.createStruct(len, off, types.toArray(new Datatype[0]));
        final Datatype t = Datatype.createResized(s, 0, extent);
        t.commit();
        datatype = t;
    }

    /** The view of one item of a struct in a buffer; subclasses give named accessors over these. */
    public abstract class Data
    {
        private ByteBuffer buffer;
        private int offset;

        /**
         * The buffer from this item on: the buffer the view reads and writes when the item is at
         * its start, else a slice of it ({@code MPI.slice}) that starts at the item, so that a
         * send of one item of the struct's type from it sends this item (as in Open MPI).
         */
        public final ByteBuffer getBuffer()
        {
            return at(offset);
        }

        /**
         * + The buffer from field {@code field} of this item on (a slice unless that is byte 0),
         * to send or receive the field's data of type {@code type} in place; protected in Open
         * MPI's bindings, for the accessors of subclasses.
         */
        protected final ByteBuffer getBuffer(final Datatype type, final int field)
        {
            return getBuffer(type, field, 0);
        }

        /**
         * + The buffer from element {@code index} of field {@code field} of this item on: the
         * field's byte offset plus {@code index} extents (in bytes) of {@code type}.
         */
        protected final ByteBuffer getBuffer(final Datatype type, final int field, final int index)
        {
            if (type == null || type.isNull())
            {
                throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_TYPE,
                    "Struct.Data.getBuffer: null or freed datatype"));
            }
            final long at = offset + (long)field + (long)index * type.map.extent();
            if (at < 0 || at > buffer.capacity())
            {
                throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_BUFFER,
                    "Struct.Data.getBuffer: byte " + at + " outside a buffer of " + buffer.capacity() + ": field=" +
                    field + ", index=" + index + ", datatype=" + type.getName()));
            }
            return at((int)at);
        }

        private ByteBuffer at(final int position)
        {
            return position == 0 ? buffer : MPI.slice(buffer, position);
        }

        protected final byte getByte(final int field)
        {
            return buffer.get(offset + field);
        }

        protected final byte getByte(final int field, final int index)
        {
            return buffer.get(offset + field + index);
        }

        protected final void putByte(final int field, final byte v)
        {
            buffer.put(offset + field, v);
        }

        protected final void putByte(final int field, final int index, final byte v)
        {
            buffer.put(offset + field + index, v);
        }

        protected final char getChar(final int field)
        {
            return buffer.getChar(offset + field);
        }

        protected final char getChar(final int field, final int index)
        {
            return buffer.getChar(offset + field + 2 * index);
        }

        protected final void putChar(final int field, final char v)
        {
            buffer.putChar(offset + field, v);
        }

        protected final void putChar(final int field, final int index, final char v)
        {
            buffer.putChar(offset + field + 2 * index, v);
        }

        protected final short getShort(final int field)
        {
            return buffer.getShort(offset + field);
        }

        protected final short getShort(final int field, final int index)
        {
            return buffer.getShort(offset + field + 2 * index);
        }

        protected final void putShort(final int field, final short v)
        {
            buffer.putShort(offset + field, v);
        }

        protected final void putShort(final int field, final int index, final short v)
        {
            buffer.putShort(offset + field + 2 * index, v);
        }

        protected final int getInt(final int field)
        {
            return buffer.getInt(offset + field);
        }

        protected final int getInt(final int field, final int index)
        {
            return buffer.getInt(offset + field + 4 * index);
        }

        protected final void putInt(final int field, final int v)
        {
            buffer.putInt(offset + field, v);
        }

        protected final void putInt(final int field, final int index, final int v)
        {
            buffer.putInt(offset + field + 4 * index, v);
        }

        protected final long getLong(final int field)
        {
            return buffer.getLong(offset + field);
        }

        protected final long getLong(final int field, final int index)
        {
            return buffer.getLong(offset + field + 8 * index);
        }

        protected final void putLong(final int field, final long v)
        {
            buffer.putLong(offset + field, v);
        }

        protected final void putLong(final int field, final int index, final long v)
        {
            buffer.putLong(offset + field + 8 * index, v);
        }

        protected final float getFloat(final int field)
        {
            return buffer.getFloat(offset + field);
        }

        protected final float getFloat(final int field, final int index)
        {
            return buffer.getFloat(offset + field + 4 * index);
        }

        protected final void putFloat(final int field, final float v)
        {
            buffer.putFloat(offset + field, v);
        }

        protected final void putFloat(final int field, final int index, final float v)
        {
            buffer.putFloat(offset + field + 4 * index, v);
        }

        protected final double getDouble(final int field)
        {
            return buffer.getDouble(offset + field);
        }

        protected final double getDouble(final int field, final int index)
        {
            return buffer.getDouble(offset + field + 8 * index);
        }

        protected final void putDouble(final int field, final double v)
        {
            buffer.putDouble(offset + field, v);
        }

        protected final void putDouble(final int field, final int index, final double v)
        {
            buffer.putDouble(offset + field + 8 * index, v);
        }

        /** The view of the struct held in field {@code field} (item {@code index} of it). */
        protected final <T extends Struct.Data> T getData(final Struct struct, final int field, final int index)
        {
            final Struct.Data d = struct.getData(buffer, 0);
            return d.shifted(offset + field + index * struct.getExtent());
        }

        /** The view of the struct held in field {@code field}. */
        protected final <T extends Struct.Data> T getData(final Struct struct, final int field)
        {
            return getData(struct, field, 0);
        }

        @SuppressWarnings("unchecked")
        private <T extends Struct.Data> T shifted(final int at)
        {
            offset = at;
            return (T)this;
        }
    }
}
