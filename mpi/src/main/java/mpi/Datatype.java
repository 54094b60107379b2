package mpi;

import org.shmpi.shm.ErrorClass;
import org.shmpi.types.BasicKind;
import org.shmpi.types.DataLayout;
import org.shmpi.types.TypeMap;

/**
 * An MPI datatype: a basic type, which maps one Java primitive array type (and the matching
 * {@link java.nio.Buffer} type) to elements of a fixed size, or a derived type built from
 * others by the {@code create*} constructors. As in Open MPI's bindings every type has a base
 * type: a derived type's is its old type's (a struct's is {@code MPI.BYTE}), and
 * {@link #getSize}, {@link #getExtent}, {@link #getLb} and the true bounds count in elements of
 * it, so that over a Java array they count array elements (the pair types' base type is
 * {@code MPI.BYTE}, as in Open MPI; the complex types' is their part); vector strides and indexed
 * displacements count in extents of the old type, the H forms, structs and
 * {@link #createResized} in bytes. A derived type must be {@link #commit committed} before it
 * describes a message. As in Open MPI a datatype is {@link Freeable} and {@link Cloneable}:
 * {@link #clone()} is {@link #dup()}, a new datatype with the same type map that the
 * application frees; the predefined ones ({@code MPI.INT}, ...) cannot be freed.
 * <p>
 * Why one file of ~860 lines: it is Open MPI's {@code Datatype} API (eleven {@code create*}
 * constructors, decoding, names, attributes, life cycle) on one public class; the type engine it
 * stands on (type maps, bounds, layouts, pack/unpack) is the {@code types} module.
 */
public final class Datatype implements Freeable, Cloneable
{
    static final int NULL_ID = BasicKind.NULL;
    static final int BYTE_ID = BasicKind.BYTE;
    static final int CHAR_ID = BasicKind.CHAR;
    static final int SHORT_ID = BasicKind.SHORT;
    static final int BOOLEAN_ID = BasicKind.BOOLEAN;
    static final int INT_ID = BasicKind.INT;
    static final int LONG_ID = BasicKind.LONG;
    static final int FLOAT_ID = BasicKind.FLOAT;
    static final int DOUBLE_ID = BasicKind.DOUBLE;
    static final int PACKED_ID = BasicKind.PACKED;
    static final int INT2_ID = BasicKind.INT2;
    static final int SHORT_INT_ID = BasicKind.SHORT_INT;
    static final int LONG_INT_ID = BasicKind.LONG_INT;
    static final int FLOAT_INT_ID = BasicKind.FLOAT_INT;
    static final int DOUBLE_INT_ID = BasicKind.DOUBLE_INT;
    static final int FLOAT_COMPLEX_ID = BasicKind.FLOAT_COMPLEX;
    static final int DOUBLE_COMPLEX_ID = BasicKind.DOUBLE_COMPLEX;

    final int id;
    final int size;
    /**
     * The reducer of each predefined op (by op code) once reduced over this type: immutable, with
     * final fields, so safely shared between threads; a steady loop of reductions allocates none.
     */
    final Object[] reducers = new Object[org.shmpi.types.reduce.Reductions.COUNT];
    /** Basic elements per item: 2 for the pair and complex types, else 1. */
    final int elementsPerItem;
    /** Size of the first element of a pair (for counting a partial pair), else the size. */
    final int firstPartSize;
    private volatile String name;
    /** One of the {@code MPI.XXX} constants, which cannot be freed; false for a dup. */
    private final boolean predefined;
    /** Set by {@link #free()} of a dup: it is then {@code MPI.DATATYPE_NULL}. */
    private boolean freed;
    /** The type map in bytes; null for {@code MPI.DATATYPE_NULL}. */
    final TypeMap map;
    /** Bytes of an element of the base type: what the size, extent and bounds are counted in. */
    final int baseSize;
    /** Made by a {@code create*} constructor (or a dup of one): needs {@link #commit}. */
    final boolean derived;
    private boolean committed;
    private static final Attributes ATTRIBUTES = new Attributes("datatype");
    private final Attributes.Cache attributes = ATTRIBUTES.new Cache();

    private Datatype(
        final int id, final int size, final String name)
    {
        this(id, size, name, 1, size, Math.max(1, size), true);
    }

    private Datatype(
        final int id,
        final int size,
        final String name,
        final int elementsPerItem,
        final int firstPartSize,
        final int baseSize)
    {
        this(id, size, name, elementsPerItem, firstPartSize, baseSize, true);
    }

    private Datatype(
        final int id,
        final int size,
        final String name,
        final int elementsPerItem,
        final int firstPartSize,
        final int baseSize,
        final boolean predefined)
    {
        this.id = id;
        this.size = size;
        this.name = name;
        this.elementsPerItem = elementsPerItem;
        this.firstPartSize = firstPartSize;
        this.predefined = predefined;
        // {long or double, int}: the data ends at byte 12, 4 bytes of padding after it.
        this.map = size == 0 ? null : TypeMap.basic(id, size, id == LONG_INT_ID || id == DOUBLE_INT_ID ? 12 : size);
        this.baseSize = baseSize;
        this.derived = false;
        this.committed = true;
    }

    /** A derived type over {@code map} whose size and bounds count in elements of {@code baseSize} bytes. */
    private Datatype(final TypeMap map, final int baseSize, final int id, final String name)
    {
        if (map.size() > Integer.MAX_VALUE)
        {
            throw new MPIException(ErrorClass.ERR_ARG, "derived datatype larger than 2 GiB: size=" + map.size());
        }
        this.id = id;
        this.size = (int)map.size();
        this.name = name;
        this.elementsPerItem = (int)Math.min(Integer.MAX_VALUE, Math.max(1, elementsIn(map, map.size())));
        this.firstPartSize = size;
        this.predefined = false;
        this.map = map;
        this.baseSize = baseSize;
        this.derived = true;
    }

    /**
     * Basic elements in the first {@code bytes} packed bytes of items of {@code map}, each part
     * of a pair type counting (a pair cut after its value counts 1); -1 when the bytes end
     * inside an element.
     */
    static long elementsIn(final TypeMap map, final long bytes)
    {
        final long size = map.size();
        if (size == 0)
        {
            return bytes == 0 ? 0 : -1;
        }
        final long[][] sig = map.signature();
        long perItem = 0;
        for (final long[] run : sig)
        {
            perItem += run[1] * Kinds.of((int)run[0]).elementsPerItem;
        }
        long n = bytes / size * perItem;
        long rest = bytes % size;
        for (int i = 0; i < sig.length && rest > 0; i++)
        {
            final Datatype b = Kinds.of((int)sig[i][0]);
            final long runBytes = sig[i][1] * b.size;
            if (rest >= runBytes)
            {
                rest -= runBytes;
                n += sig[i][1] * b.elementsPerItem;
                continue;
            }
            n += rest / b.size * b.elementsPerItem;
            final long cut = rest % b.size;
            rest = 0;
            if (cut != 0)
            {
                if (b.elementsPerItem == 1 || cut != b.firstPartSize)
                {
                    return -1;
                }
                n++;
            }
        }
        return n;
    }

    /** {@link #uniformKind()}, once known; -2 before. */
    private volatile int uniformKind = -2;

    /**
     * The one basic kind every element of this type has (what a predefined reduction applies
     * to), or -1 when its elements are of several kinds or it has none.
     */
    int uniformKind()
    {
        int k = uniformKind;
        if (k == -2)
        {
            k = -1;
            if (map != null)
            {
                final long[][] sig = map.signature();
                if (sig.length == 1 && sig[0][1] > 0)
                {
                    k = (int)sig[0][0];
                }
            }
            uniformKind = k;
        }
        return k;
    }

    /** The copy program of this type's items. */
    DataLayout layout()
    {
        return map == null ? DataLayout.CONTIGUOUS : map.layout();
    }

    /** Whether this type may describe a message: not null or freed, and committed if derived. */
    boolean usable()
    {
        return !isNull() && committed;
    }

    /** One shared instance of each basic kind, for looking up sizes by kind (never handed out). */
    static final class Kinds
    {
        private static final Datatype[] ALL = new Datatype[DOUBLE_COMPLEX_ID + 1];

        static
        {
            for (int id = 0; id < ALL.length; id++)
            {
                ALL[id] = basic(id);
            }
        }

        private Kinds()
        {
        }

        static Datatype of(final int kind)
        {
            return ALL[kind];
        }
    }

    static Datatype basic(final int id)
    {
        switch (id)
        {
            case NULL_ID: return new Datatype(NULL_ID, 0, "MPI_DATATYPE_NULL");
            case BYTE_ID: return new Datatype(BYTE_ID, 1, "MPI_BYTE");
            case CHAR_ID: return new Datatype(CHAR_ID, 2, "MPI_CHAR");
            case SHORT_ID: return new Datatype(SHORT_ID, 2, "MPI_SHORT");
            case BOOLEAN_ID: return new Datatype(BOOLEAN_ID, 1, "MPI_BOOLEAN");
            case INT_ID: return new Datatype(INT_ID, 4, "MPI_INT");
            case LONG_ID: return new Datatype(LONG_ID, 8, "MPI_LONG");
            case FLOAT_ID: return new Datatype(FLOAT_ID, 4, "MPI_FLOAT");
            case DOUBLE_ID: return new Datatype(DOUBLE_ID, 8, "MPI_DOUBLE");
            case PACKED_ID: return new Datatype(PACKED_ID, 1, "MPI_PACKED");
            // Pair types as laid out in a direct ByteBuffer: value, then int index, C alignment. Their
            // size and bounds count bytes (Open MPI builds them on MPI.BYTE): a program sizes its
            // buffer as getExtent() * n. The complex types count in units of their parts.
            case INT2_ID: return new Datatype(INT2_ID, 8, "MPI_2INT", 2, 4, 1);
            case SHORT_INT_ID: return new Datatype(SHORT_INT_ID, 8, "MPI_SHORT_INT", 2, 2, 1);
            case LONG_INT_ID: return new Datatype(LONG_INT_ID, 16, "MPI_LONG_INT", 2, 8, 1);
            case FLOAT_INT_ID: return new Datatype(FLOAT_INT_ID, 8, "MPI_FLOAT_INT", 2, 4, 1);
            case DOUBLE_INT_ID: return new Datatype(DOUBLE_INT_ID, 16, "MPI_DOUBLE_INT", 2, 8, 1);
            case FLOAT_COMPLEX_ID: return new Datatype(FLOAT_COMPLEX_ID, 8, "MPI_C_FLOAT_COMPLEX", 2, 4, 4);
            case DOUBLE_COMPLEX_ID: return new Datatype(DOUBLE_COMPLEX_ID, 16, "MPI_C_DOUBLE_COMPLEX", 2, 8, 8);
            default: throw new IllegalArgumentException("unknown basic datatype: id=" + id);
        }
    }

    /**
     * Java binding of {@code MPI_TYPE_SIZE}: the data in one item of this type, in elements of
     * its base type (1 for a basic type, a pair type's data bytes (6 for {@code SHORT_INT}), 2 for a
     * complex type; a struct's base type is {@code MPI.BYTE}).
     */
    public int getSize()
    {
        int d = dataBytes;
        if (d < 0)
        {
            long bytes = 0;
            if (map != null)
            {
                for (final long[] run : map.signature())
                {
                    bytes += run[1] * dataBytesOf((int)run[0]);
                }
            }
            d = (int)Math.min(Integer.MAX_VALUE, bytes);
            dataBytes = d;
        }
        return d / baseSize;
    }

    /** The bytes of data (padding not counted) in one item of this type, once known; -1 before. */
    private volatile int dataBytes = -1;

    /** The bytes of data in one element of basic kind {@code kind}: a pair's padding is not data. */
    private static int dataBytesOf(final int kind)
    {
        switch (kind)
        {
            case SHORT_INT_ID: return 6;
            case LONG_INT_ID:
            case DOUBLE_INT_ID: return 12;
            default: return Kinds.of(kind).size;
        }
    }

    /** Java binding of {@code MPI_TYPE_GET_EXTENT}: the extent, in elements of the base type. */
    public int getExtent()
    {
        return map == null ? 0 : (int)(map.extent() / baseSize);
    }

    /** Java binding of {@code MPI_TYPE_GET_EXTENT}: the lower bound, in elements of the base type. */
    public int getLb()
    {
        return map == null ? 0 : (int)(map.lb() / baseSize);
    }

    /** Java binding of {@code MPI_TYPE_GET_TRUE_EXTENT}: the true extent, in elements of the base type. */
    public int getTrueExtent()
    {
        return map == null ? 0 : (int)(map.trueExtent() / baseSize);
    }

    /** Java binding of {@code MPI_TYPE_GET_TRUE_EXTENT}: the true lower bound, in elements of the base type. */
    public int getTrueLb()
    {
        return map == null ? 0 : (int)(map.trueLb() / baseSize);
    }

    // ------------------------------------------------------------------------------------------
    // Constructors of derived types

    /** Java binding of {@code MPI_TYPE_CONTIGUOUS}: {@code count} copies of {@code oldType}. */
    public static Datatype createContiguous(final int count, final Datatype oldType)
    {
        return derive(oldType, "contiguous", () ->
        {
            count(count);
            return TypeMap.contiguous(count, oldType.map);
        }).decoded(MPI.COMBINER_CONTIGUOUS, new int[] {count}, NO_ADDRESSES, oldType);
    }

    /**
     * Java binding of {@code MPI_TYPE_VECTOR}: {@code count} blocks of {@code blockLength}
     * copies of {@code oldType}, block starts {@code stride} extents of {@code oldType} apart.
     */
    public static Datatype createVector(final int count, final int blockLength, final int stride,
        final Datatype oldType)
    {
        return derive(oldType, "vector", () ->
        {
            count(count);
            return TypeMap.hvector(count, blockLength, (long)stride * oldType.map.extent(), oldType.map);
        }).decoded(MPI.COMBINER_VECTOR, new int[] {count, blockLength, stride}, NO_ADDRESSES, oldType);
    }

    /** Java binding of {@code MPI_TYPE_CREATE_HVECTOR}: as {@link #createVector}, the stride in bytes. */
    public static Datatype createHVector(final int count, final int blockLength, final int stride,
        final Datatype oldType)
    {
        return derive(oldType, "hvector", () ->
        {
            count(count);
            return TypeMap.hvector(count, blockLength, stride, oldType.map);
        }).decoded(MPI.COMBINER_HVECTOR, new int[] {count, blockLength}, new long[] {stride}, oldType);
    }

    /**
     * Java binding of {@code MPI_TYPE_INDEXED}: block {@code i} is {@code blockLengths[i]}
     * copies of {@code oldType} from {@code displacements[i]} extents of {@code oldType}.
     */
    public static Datatype createIndexed(final int[] blockLengths, final int[] displacements, final Datatype oldType)
    {
        return derive(oldType, "indexed", () -> TypeMap.hindexed(blockLengths,
            scaled(displacements, oldType.map.extent(), blockLengths), oldType.map))
            .decoded(MPI.COMBINER_INDEXED, ints(blockLengths.length, blockLengths, displacements), NO_ADDRESSES,
                oldType);
    }

    /** Java binding of {@code MPI_TYPE_CREATE_HINDEXED}: as {@link #createIndexed}, the displacements in bytes. */
    public static Datatype createHIndexed(final int[] blockLengths, final int[] displacements, final Datatype oldType)
    {
        return derive(oldType, "hindexed", () -> TypeMap.hindexed(blockLengths,
            scaled(displacements, 1, blockLengths), oldType.map))
            .decoded(MPI.COMBINER_HINDEXED, ints(blockLengths.length, blockLengths), scaled(displacements, 1, null),
                oldType);
    }

    /**
     * Java binding of {@code MPI_TYPE_CREATE_INDEXED_BLOCK} (not in Open MPI's bindings): blocks
     * of {@code blockLength} copies of {@code oldType} from {@code displacements[i]} extents.
     */
    public static Datatype createIndexedBlock(final int blockLength, final int[] displacements,
        final Datatype oldType)
    {
        return derive(oldType, "indexed_block", () -> TypeMap.hindexed(same(blockLength, displacements),
            scaled(displacements, oldType.map.extent(), null), oldType.map))
            .decoded(MPI.COMBINER_INDEXED_BLOCK, ints(displacements.length, new int[] {blockLength}, displacements),
                NO_ADDRESSES, oldType);
    }

    /**
     * Java binding of {@code MPI_TYPE_CREATE_HINDEXED_BLOCK} (not in Open MPI's bindings): the displacements in bytes.
     */
    public static Datatype createHIndexedBlock(final int blockLength, final int[] displacements,
        final Datatype oldType)
    {
        return derive(oldType, "hindexed_block", () -> TypeMap.hindexed(same(blockLength, displacements),
            scaled(displacements, 1, null), oldType.map))
            .decoded(MPI.COMBINER_HINDEXED_BLOCK, new int[] {displacements.length, blockLength},
                scaled(displacements, 1, null), oldType);
    }

    /**
     * Java binding of {@code MPI_TYPE_CREATE_STRUCT}: block {@code i} is {@code blockLengths[i]}
     * copies of {@code types[i]} from byte {@code displacements[i]}. Its base type is
     * {@code MPI.BYTE}: its size and bounds count bytes.
     */
    public static Datatype createStruct(final int[] blockLengths, final int[] displacements, final Datatype[] types)
    {
        MPI.check();
        try
        {
            if (types == null)
            {
                throw new MPIException(ErrorClass.ERR_ARG, "struct: types is null");
            }
            final TypeMap[] maps = new TypeMap[types.length];
            for (int i = 0; i < types.length; i++)
            {
                checkOld(types[i]);
                maps[i] = types[i].map;
            }
            return new Datatype(build("struct", () -> TypeMap.struct(blockLengths, scaled(displacements, 1,
                blockLengths), maps)), 1, BYTE_ID, "struct")
                .decoded(MPI.COMBINER_STRUCT, ints(blockLengths.length, blockLengths), scaled(displacements, 1, null),
                    types.clone());
        }
        catch (final MPIException ex)
        {
            throw MPI.COMM_WORLD.handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_TYPE_CREATE_RESIZED}: the type map of {@code oldType} with
     * lower bound {@code lb} and extent {@code extent}, both in bytes (as Open MPI passes them).
     */
    public static Datatype createResized(final Datatype oldType, final int lb, final int extent)
    {
        return derive(oldType, "resized", () -> TypeMap.resized(oldType.map, lb, extent))
            .decoded(MPI.COMBINER_RESIZED, new int[0], new long[] {lb, extent}, oldType);
    }

    /**
     * Java binding of {@code MPI_TYPE_CREATE_SUBARRAY} (not in Open MPI's bindings): the
     * {@code subsizes} block from {@code starts} of an array of {@code sizes} elements of
     * {@code oldType}, in {@code order} {@code MPI.ORDER_C} or {@code MPI.ORDER_FORTRAN}.
     */
    public static Datatype createSubarray(final int[] sizes, final int[] subsizes, final int[] starts,
        final int order, final Datatype oldType)
    {
        return derive(oldType, "subarray", () ->
        {
            if (sizes == null || subsizes == null || starts == null)
            {
                throw new MPIException(ErrorClass.ERR_ARG, "subarray: null sizes, subsizes or starts");
            }
            if (order != MPI.ORDER_C && order != MPI.ORDER_FORTRAN)
            {
                throw new MPIException(ErrorClass.ERR_ARG,
                    "subarray: order must be MPI.ORDER_C or MPI.ORDER_FORTRAN: " + order);
            }
            return TypeMap.subarray(sizes, subsizes, starts, order == MPI.ORDER_C ? TypeMap.Order.C :
                TypeMap.Order.FORTRAN, oldType.map);
        })
            .decoded(MPI.COMBINER_SUBARRAY, ints(sizes.length, sizes, subsizes, starts, new int[] {order}),
                NO_ADDRESSES, oldType);
    }

    /**
     * Java binding of {@code MPI_TYPE_CREATE_DARRAY} (not in Open MPI's bindings): the part of a
     * {@code gsizes} array of {@code oldType} that process {@code rank} of a row-major
     * {@code psizes} grid of {@code size} processes owns, each dimension distributed
     * {@code MPI.DISTRIBUTE_BLOCK}, {@code DISTRIBUTE_CYCLIC} or {@code DISTRIBUTE_NONE} with
     * argument {@code dargs[d]} (or {@code DISTRIBUTE_DFLT_DARG}); {@code order} is
     * {@code MPI.ORDER_C} or {@code ORDER_FORTRAN}. Its extent is the whole array's.
     */
    public static Datatype createDarray(final int size, final int rank, final int[] gsizes, final int[] distribs,
        final int[] dargs, final int[] psizes, final int order, final Datatype oldType)
    {
        return derive(oldType, "darray", () ->
        {
            if (gsizes == null || distribs == null || dargs == null || psizes == null)
            {
                throw new MPIException(ErrorClass.ERR_ARG, "darray: null gsizes, distribs, dargs or psizes");
            }
            if (order != MPI.ORDER_C && order != MPI.ORDER_FORTRAN)
            {
                throw new MPIException(ErrorClass.ERR_ARG, "darray: order must be MPI.ORDER_C or MPI.ORDER_FORTRAN: " +
                    order);
            }
            return TypeMap.darray(size, rank, gsizes, distribs, dargs, psizes, order == MPI.ORDER_C ? TypeMap.Order.C :
                TypeMap.Order.FORTRAN, oldType.map);
        }).decoded(MPI.COMBINER_DARRAY, ints(size, new int[] {rank, gsizes.length}, gsizes, distribs, dargs, psizes,
            new int[] {order}), NO_ADDRESSES, oldType);
    }

    private static final long[] NO_ADDRESSES = new long[0];

    /** How this type was made, for {@link #getEnvelope} and {@link #getContents}. */
    private int combiner = MPI.COMBINER_NAMED;
    private int[] contentInts = new int[0];
    private long[] contentAddresses = NO_ADDRESSES;
    private Datatype[] contentTypes = new Datatype[0];

    private Datatype decoded(final int how, final int[] integers, final long[] addresses, final Datatype... types)
    {
        combiner = how;
        contentInts = integers;
        contentAddresses = addresses;
        contentTypes = types;
        return this;
    }

    /** {@code first}, then every array's elements: the integer arguments of a constructor. */
    private static int[] ints(final int first, final int[]... arrays)
    {
        int n = 1;
        for (final int[] a : arrays)
        {
            n += a.length;
        }
        final int[] out = new int[n];
        out[0] = first;
        int at = 1;
        for (final int[] a : arrays)
        {
            System.arraycopy(a, 0, out, at, a.length);
            at += a.length;
        }
        return out;
    }

    /**
     * Java binding of {@code MPI_TYPE_GET_ENVELOPE} (not in Open MPI's bindings): the numbers of
     * integers, addresses and datatypes the type was built from, and how ({@code MPI.COMBINER_*}):
     * {@code {integers, addresses, datatypes, combiner}}. Predefined types answer
     * {@code COMBINER_NAMED}, a dup {@code COMBINER_DUP}.
     */
    public int[] getEnvelope()
    {
        MPI.check();
        return new int[] {contentInts.length, contentAddresses.length, contentTypes.length, combiner};
    }

    /**
     * Java binding of {@code MPI_TYPE_GET_CONTENTS} (not in Open MPI's bindings): the arguments
     * the type was built from, in the standard's order per combiner (for a vector: count,
     * blockLength, stride; for an H form the byte displacements as addresses; ...). A named
     * type has none: {@code MPI.ERR_TYPE}, as the standard says.
     */
    public Contents getContents()
    {
        MPI.check();
        if (combiner == MPI.COMBINER_NAMED)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_TYPE,
                "getContents of a named (predefined) datatype: " + name));
        }
        return new Contents(contentInts.clone(), contentAddresses.clone(), contentTypes.clone());
    }

    /** What {@link #getContents} returns: the constructor's integers, addresses (bytes) and datatypes. */
    public static final class Contents
    {
        private final int[] integers;
        private final long[] addresses;
        private final Datatype[] datatypes;

        Contents(final int[] integers, final long[] addresses, final Datatype[] datatypes)
        {
            this.integers = integers;
            this.addresses = addresses;
            this.datatypes = datatypes;
        }

        public int[] getIntegers()
        {
            return integers.clone();
        }

        public long[] getAddresses()
        {
            return addresses.clone();
        }

        public Datatype[] getDatatypes()
        {
            return datatypes.clone();
        }
    }

    private interface MapMaker
    {
        TypeMap make();
    }

    private static Datatype derive(final Datatype oldType, final String kind, final MapMaker maker)
    {
        MPI.check();
        try
        {
            checkOld(oldType);
            return new Datatype(build(kind, maker), oldType.baseSize, oldType.id, kind);
        }
        catch (final MPIException ex)
        {
            throw MPI.COMM_WORLD.handle(ex);
        }
    }

    /** Runs {@code maker}, turning a refused argument into {@code MPI.ERR_ARG}. */
    private static TypeMap build(final String kind, final MapMaker maker)
    {
        try
        {
            return maker.make();
        }
        catch (final IllegalArgumentException | NullPointerException ex)
        {
            throw new MPIException(ErrorClass.ERR_ARG, kind + ": " + ex.getMessage());
        }
    }

    private static void checkOld(final Datatype oldType)
    {
        if (oldType == null || oldType.isNull())
        {
            throw new MPIException(ErrorClass.ERR_TYPE, "invalid old datatype: " + oldType);
        }
    }

    private static void count(final int count)
    {
        if (count < 0)
        {
            throw new MPIException(ErrorClass.ERR_COUNT, "negative count: " + count);
        }
    }

    private static long[] scaled(final int[] displacements, final long unit, final int[] blockLengths)
    {
        if (displacements == null || blockLengths != null && blockLengths.length != displacements.length)
        {
            throw new IllegalArgumentException("displacements must have one entry per block");
        }
        final long[] out = new long[displacements.length];
        for (int i = 0; i < out.length; i++)
        {
            out[i] = displacements[i] * unit;
        }
        return out;
    }

    private static int[] same(final int blockLength, final int[] displacements)
    {
        if (displacements == null)
        {
            throw new IllegalArgumentException("displacements is null");
        }
        final int[] out = new int[displacements.length];
        java.util.Arrays.fill(out, blockLength);
        return out;
    }

    /** Java binding of {@code MPI_TYPE_GET_NAME}. */
    public String getName()
    {
        return name;
    }

    /**
     * Java binding of {@code MPI_TYPE_SET_NAME}: the name {@link #getName} returns from now on
     * (a dup takes its type's name). Names are cut at {@code MPI.MAX_OBJECT_NAME} characters.
     */
    public void setName(final String name)
    {
        MPI.check();
        if (name == null || isNull())
        {
            throw MPI.COMM_WORLD.handle(new MPIException(isNull() ? ErrorClass.ERR_TYPE : ErrorClass.ERR_ARG,
                isNull() ? "setName on a null or freed datatype" : "setName: null name"));
        }
        this.name = name.length() > MAX_NAME ? name.substring(0, MAX_NAME) : name;
    }

    /**
     * Java binding of {@code MPI_TYPE_CREATE_KEYVAL}: a new attribute key for datatypes; a dup
     * gets the same value object ({@code createKeyval(Keyval.DUP, Keyval.NO_DELETE)}).
     */
    public static int createKeyval()
    {
        return createKeyval(Keyval.DUP, Keyval.NO_DELETE);
    }

    /**
     * + {@code MPI_TYPE_CREATE_KEYVAL} with callbacks: {@code copy} runs on {@link #dup()} for
     * each attribute cached under the keyval, {@code delete} on {@link #deleteAttr}, on
     * {@link #setAttr} over a value and on {@link #free()} (see {@link Keyval}). Null callbacks
     * are {@code MPI.ERR_ARG}.
     */
    public static int createKeyval(final Keyval.Copy copy, final Keyval.Delete delete)
    {
        return ATTRIBUTES.createKeyval(copy, delete);
    }

    /** Java binding of {@code MPI_TYPE_FREE_KEYVAL}; attributes already cached under it stay. */
    public static void freeKeyval(final int keyval)
    {
        ATTRIBUTES.freeKeyval(keyval);
    }

    /** Java binding of {@code MPI_TYPE_SET_ATTR}: caches {@code value} under {@code keyval}, replacing any. */
    public void setAttr(final int keyval, final Object value)
    {
        MPI.check();
        try
        {
            MPI.checkDatatype(this);
            attributes.set(this, keyval, value);
        }
        catch (final MPIException ex)
        {
            throw MPI.COMM_WORLD.handle(ex);
        }
    }

    /** Java binding of {@code MPI_TYPE_GET_ATTR}: the value cached under {@code keyval}, or null. */
    public Object getAttr(final int keyval)
    {
        MPI.check();
        try
        {
            MPI.checkDatatype(this);
            return attributes.get(keyval);
        }
        catch (final MPIException ex)
        {
            throw MPI.COMM_WORLD.handle(ex);
        }
    }

    /** Java binding of {@code MPI_TYPE_DELETE_ATTR}. */
    public void deleteAttr(final int keyval)
    {
        MPI.check();
        try
        {
            MPI.checkDatatype(this);
            attributes.delete(this, keyval);
        }
        catch (final MPIException ex)
        {
            throw MPI.COMM_WORLD.handle(ex);
        }
    }

    /** {@code MPI_MAX_OBJECT_NAME} less the C terminator, as Open MPI. */
    private static final int MAX_NAME = MPI.MAX_OBJECT_NAME - 1;

    /**
     * Java binding of {@code MPI_TYPE_COMMIT}: a derived type may describe messages from now on.
     * Its copy program was made when the type was built (a flattened, merged block list); basic
     * types are always committed. A null or freed type is {@code MPI.ERR_TYPE}.
     */
    public void commit()
    {
        MPI.check();
        if (isNull())
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_TYPE, "commit of a null or freed datatype"));
        }
        committed = true;
    }

    /**
     * Java binding of {@code MPI_TYPE_DUP}: a new datatype with the same type map (and name),
     * to be freed by the application.
     */
    public Datatype dup()
    {
        MPI.check();
        try
        {
            MPI.checkDatatype(this);
        }
        catch (final MPIException ex)
        {
            throw MPI.COMM_WORLD.handle(ex);
        }
        final Datatype d;
        if (derived)
        {
            d = new Datatype(map, baseSize, id, name);
            d.committed = committed;
        }
        else
        {
            d = new Datatype(id, size, name, elementsPerItem, firstPartSize, baseSize, false);
        }
        d.decoded(MPI.COMBINER_DUP, new int[0], NO_ADDRESSES, this);
        try
        {
            attributes.copyInto(this, d.attributes, d);
        }
        catch (final MPIException ex)
        {
            d.freed = true;
            throw MPI.COMM_WORLD.handle(ex);
        }
        return d;
    }

    /** Java binding of {@code MPI_TYPE_DUP}, as in Open MPI: the same as {@link #dup()}. */
    @Override
    public Datatype clone()
    {
        return dup();
    }

    /**
     * Java binding of {@code MPI_TYPE_FREE}: a datatype made by {@link #dup()} becomes
     * {@code MPI.DATATYPE_NULL} (operations already started with it are not affected). The
     * predefined types cannot be freed: {@code MPI.ERR_TYPE}, raised on {@code MPI.COMM_WORLD}
     * (MPI's rule for errors outside any communicator).
     */
    @Override
    public void free()
    {
        MPI.check();
        if (predefined || freed)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_TYPE, predefined ?
                "a predefined datatype cannot be freed: " + name : "datatype already freed: " + name));
        }
        try
        {
            attributes.clear(this);
        }
        catch (final MPIException ex)
        {
            throw MPI.COMM_WORLD.handle(ex);
        }
        freed = true;
    }

    /** Whether this is {@code MPI.DATATYPE_NULL} (or a freed dup). */
    public boolean isNull()
    {
        return id == NULL_ID || freed;
    }

    @Override
    public String toString()
    {
        return name;
    }
}
