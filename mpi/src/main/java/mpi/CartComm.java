package mpi;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.shmpi.affinity.NumaPlacement;
import org.shmpi.affinity.Topology;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;

/**
 * Java binding of a communicator with a Cartesian topology (MPI-2.2 section 7.5): ranks laid
 * out row-major on a grid of {@code dims}, each dimension periodic or not. Made by
 * {@link Intracomm#createCart}, which documents what {@code reorder} does.
 */
public final class CartComm extends Intracomm
{
    private final int[] dims;
    private final boolean[] periods;

    CartComm(final int[] dims, final boolean[] periods)
    {
        super("");
        this.dims = dims;
        this.periods = periods;
    }

    /**
     * Makes the grid over the first {@code product(dims)} ranks of {@code parent}, permuted for
     * NUMA locality when {@code reorder}; the others get a null communicator.
     */
    static CartComm create(final Intracomm parent, final int[] dims, final boolean[] periods, final boolean reorder)
    {
        if (dims == null || periods == null || dims.length != periods.length)
        {
            throw new MPIException(ErrorClass.ERR_ARG, "createCart: dims and periods must have the same length");
        }
        long product = 1;
        for (final int d : dims)
        {
            if (d <= 0)
            {
                throw new MPIException(ErrorClass.ERR_DIMS, "createCart: every dimension must be > 0: " +
                    Arrays.toString(dims));
            }
            product *= d;
        }
        final int n = parent.getSize();
        if (product > n)
        {
            throw new MPIException(ErrorClass.ERR_ARG, "createCart: a grid of " + product + " processes on a " +
                "communicator of " + n);
        }
        // Every member must describe the same grid.
        final int[] mine = {dims.length, (int)product,
            (Arrays.hashCode(dims) * 31 + Arrays.hashCode(periods)) * 31 + Boolean.hashCode(reorder)};
        final int[] all = CommConstruction.allgatherInts(parent, mine, BlockedCall.BARRIER);
        for (int r = 0; r < n; r++)
        {
            if (all[3 * r] != mine[0] || all[3 * r + 1] != mine[1] || all[3 * r + 2] != mine[2])
            {
                throw new MPIException(ErrorClass.ERR_ARG, "createCart: rank " + r + " gave other dims, periods or " +
                    "reorder");
            }
        }
        final CartComm c = new CartComm(dims.clone(), periods.clone());
        final int[] members = Arrays.copyOf(parent.members, (int)product);
        if (reorder && product > 1)
        {
            // Every member takes part, those left out of the grid too: the exchange is over parent.
            final int[] node = Arrays.copyOf(Locality.groups(parent, Topology.Level.NUMA), (int)product);
            final int[] processOfRank = NumaPlacement.place(node, NumaPlacement.cartesian(dims, periods));
            for (int r = 0; r < product; r++)
            {
                members[r] = parent.members[processOfRank[r]];
            }
        }
        if (parent.getRank() >= product)
        {
            return c; // not bound: null
        }
        return CommConstruction.createOn(parent, members, c, "cart of " + parent.getName());
    }

    @Override
    public int getTopology()
    {
        check();
        return MPI.CART;
    }

    /** Java binding of {@code MPI_COMM_DUP} for a Cartesian communicator: the same grid on new context ids. */
    @Override
    public CartComm dup()
    {
        return CommConstruction.duplicate(this, new CartComm(dims.clone(), periods.clone()));
    }

    /** Java binding of {@code MPI_COMM_IDUP} for a Cartesian communicator (see {@link Comm#iDup()}). */
    @Override
    public CartComm iDup()
    {
        return CommConstruction.duplicateNonblocking(this, new CartComm(dims.clone(), periods.clone()));
    }

    @Override
    public CartComm clone()
    {
        return dup();
    }

    @Override
    public CartComm dupWithInfo(final Info newInfo)
    {
        final Info hints = CommConstruction.hintsOfDup(this, newInfo);
        return CommConstruction.hinted(dup(), hints);
    }

    /** Java binding of {@code MPI_CART_GET}. */
    public CartParms getTopo()
    {
        check();
        return new CartParms(dims.clone(), periods.clone(), coordsOf(getRank()));
    }

    /**
     * Java binding of {@code MPI_CART_RANK}: the rank at {@code coords}; a periodic coordinate
     * wraps, a non-periodic one outside the grid is {@code MPI.ERR_ARG}.
     */
    public int getRank(final int[] coords)
    {
        try
        {
            check();
            if (coords == null || coords.length != dims.length)
            {
                throw new MPIException(ErrorClass.ERR_ARG, "getRank: " + dims.length + " coordinates expected");
            }
            int rank = 0;
            for (int i = 0; i < dims.length; i++)
            {
                int c = coords[i];
                if (periods[i])
                {
                    c = Math.floorMod(c, dims[i]);
                }
                else if (c < 0 || c >= dims[i])
                {
                    throw new MPIException(ErrorClass.ERR_ARG, "getRank: coordinate " + c + " outside dimension " + i +
                        " of " + dims[i] + " (not periodic)");
                }
                rank = rank * dims[i] + c;
            }
            return rank;
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_CART_COORDS}: the coordinates of {@code rank} ({@code MPI.ERR_RANK} outside the grid).
     */
    public int[] getCoords(final int rank)
    {
        try
        {
            check();
            if (rank < 0 || rank >= getSize())
            {
                throw new MPIException(ErrorClass.ERR_RANK, "getCoords: rank " + rank + " outside the grid");
            }
            return coordsOf(rank);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    private int[] coordsOf(final int rank)
    {
        final int[] c = new int[dims.length];
        int r = rank;
        for (int i = dims.length - 1; i >= 0; i--)
        {
            c[i] = r % dims[i];
            r /= dims[i];
        }
        return c;
    }

    /**
     * Java binding of {@code MPI_CART_SHIFT}: the ranks {@code disp} steps back and ahead of the
     * caller along {@code direction}; off a non-periodic edge they are {@code MPI.PROC_NULL}.
     */
    public ShiftParms shift(final int direction, final int disp)
    {
        try
        {
            check();
            if (direction < 0 || direction >= dims.length)
            {
                throw new MPIException(ErrorClass.ERR_DIMS, "shift: direction " + direction + " of " + dims.length +
                    " dimensions");
            }
            final int[] me = coordsOf(getRank());
            return new ShiftParms(neighbour(me, direction, -disp), neighbour(me, direction, disp));
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * For each dimension, the neighbour in the negative direction, then the one in the positive
     * direction ({@code MPI.PROC_NULL} off a non-periodic edge), as sources and as destinations.
     * A message travelling toward negative coordinates in dimension d has tag offset 2d, toward
     * positive 2d + 1, so the block from my negative neighbour is what it sent to its positive
     * one even when both are the same process (a periodic dimension of 1 or 2).
     */
    @Override
    int[][] neighbourhood()
    {
        if (2 * dims.length > org.shmpi.coll.Members.MAX_TAG_OFFSET + 1)
        {
            throw new MPIException(ErrorClass.ERR_TOPOLOGY, "neighbourhood collectives take at most " +
                (org.shmpi.coll.Members.MAX_TAG_OFFSET + 1) / 2 + " dimensions: " + dims.length);
        }
        final int[] me = coordsOf(getRank());
        final int[] peers = new int[2 * dims.length];
        final int[] sendOffsets = new int[peers.length];
        final int[] recvOffsets = new int[peers.length];
        for (int d = 0; d < dims.length; d++)
        {
            peers[2 * d] = neighbour(me, d, -1);
            peers[2 * d + 1] = neighbour(me, d, 1);
            sendOffsets[2 * d] = 2 * d;
            sendOffsets[2 * d + 1] = 2 * d + 1;
            recvOffsets[2 * d] = 2 * d + 1;
            recvOffsets[2 * d + 1] = 2 * d;
        }
        return new int[][] {peers, recvOffsets, peers.clone(), sendOffsets};
    }

    private int neighbour(final int[] from, final int direction, final int step)
    {
        final int[] c = from.clone();
        final long to = (long)c[direction] + step;
        if (!periods[direction] && (to < 0 || to >= dims[direction]))
        {
            return MPI.PROC_NULL;
        }
        c[direction] = (int)Math.floorMod(to, (long)dims[direction]);
        int rank = 0;
        for (int i = 0; i < dims.length; i++)
        {
            rank = rank * dims[i] + c[i];
        }
        return rank;
    }

    /**
     * Java binding of {@code MPI_CART_SUB}: the sub-grids that keep the dimensions where
     * {@code remainDims} is true, one per value of the dropped coordinates; flags past the
     * grid's dimensions are ignored. Collective.
     */
    public CartComm sub(final boolean[] remainDims)
    {
        try
        {
            check();
            // Open MPI reads the first ndims flags and ignores the rest; so does shmpi (it only
            // reads the array). Fewer flags than dimensions is MPI.ERR_ARG.
            if (remainDims == null || remainDims.length < dims.length)
            {
                throw new MPIException(ErrorClass.ERR_ARG, "sub: " + dims.length + " flags expected, got " +
                    (remainDims == null ? "null" : remainDims.length));
            }
            final int[] me = coordsOf(getRank());
            int color = 0;
            final List<Integer> keptDims = new ArrayList<>();
            final List<Boolean> keptPeriods = new ArrayList<>();
            for (int i = 0; i < dims.length; i++)
            {
                if (remainDims[i])
                {
                    keptDims.add(dims[i]);
                    keptPeriods.add(periods[i]);
                }
                else
                {
                    color = color * dims[i] + me[i];
                }
            }
            final int[] all = CommConstruction.allgatherInts(this, new int[] {color}, BlockedCall.BARRIER);
            final List<Integer> same = new ArrayList<>();
            for (int r = 0; r < all.length; r++)
            {
                if (all[r] == color)
                {
                    same.add(members[r]);
                }
            }
            final int[] d = keptDims.stream().mapToInt(Integer::intValue).toArray();
            final boolean[] p = new boolean[keptPeriods.size()];
            for (int i = 0; i < p.length; i++)
            {
                p[i] = keptPeriods.get(i);
            }
            // No dimension kept: a 0-dimensional grid of one process, as MPI says.
            return CommConstruction.createOn(this, same.stream().mapToInt(Integer::intValue).toArray(),
                new CartComm(d, p), "sub-grid of " + getName() + ", " + color);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_CART_MAP}: the caller's rank on a grid of {@code dims} (row-major,
     * ranks in order, as {@link Intracomm#createCart} places them without reorder), or
     * {@code MPI.UNDEFINED} if the grid has fewer processes than the caller's rank + 1.
     */
    public int map(final int[] mapDims, final boolean[] mapPeriods)
    {
        check();
        return mapRank(this, mapDims, mapPeriods);
    }

    static int mapRank(final Comm comm, final int[] mapDims, final boolean[] mapPeriods)
    {
        if (mapDims == null || mapPeriods == null || mapDims.length != mapPeriods.length)
        {
            throw comm.handle(new MPIException(ErrorClass.ERR_ARG, "map: dims and periods must have the same length"));
        }
        long product = 1;
        for (final int d : mapDims)
        {
            if (d <= 0)
            {
                throw comm.handle(new MPIException(ErrorClass.ERR_DIMS, "map: every dimension must be > 0"));
            }
            product *= d;
        }
        if (product > comm.getSize())
        {
            throw comm.handle(new MPIException(ErrorClass.ERR_DIMS, "map: a grid larger than the communicator"));
        }
        return comm.getRank() < product ? comm.getRank() : MPI.UNDEFINED;
    }

    /**
     * Java binding of {@code MPI_DIMS_CREATE}: fills the zero entries of {@code dims} so that the
     * product of all is {@code nnodes}, as close to each other as the factors allow and in
     * non-increasing order (prime factors of what remains, largest first, each given to the
     * currently smallest free dimension). Non-zero entries stay; when their product does not
     * divide {@code nnodes}, or an entry is negative, {@code MPI.ERR_DIMS}.
     */
    public static void createDims(final int nnodes, final int[] dims)
    {
        MPI.check();
        if (dims == null)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_ARG, "createDims: dims is null"));
        }
        if (nnodes <= 0 || dims.length == 0)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_DIMS,
                "createDims: nnodes and the number of dimensions must be > 0: " + nnodes + ", " + dims.length));
        }
        long fixed = 1;
        int free = 0;
        for (final int d : dims)
        {
            if (d < 0)
            {
                throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_DIMS, "createDims: negative dimension"));
            }
            if (d == 0)
            {
                free++;
            }
            else
            {
                fixed *= d;
            }
        }
        if (nnodes % fixed != 0 || (free == 0 && fixed != nnodes))
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_DIMS, "createDims: " + nnodes +
                " processes do not fit the fixed dimensions " + Arrays.toString(dims)));
        }
        if (free == 0)
        {
            return;
        }
        int rest = (int)(nnodes / fixed);
        final List<Integer> factors = new ArrayList<>();
        for (int p = 2; (long)p * p <= rest; p++)
        {
            while (rest % p == 0)
            {
                factors.add(p);
                rest /= p;
            }
        }
        if (rest > 1)
        {
            factors.add(rest);
        }
        final int[] part = new int[free];
        Arrays.fill(part, 1);
        for (int i = factors.size() - 1; i >= 0; i--)
        {
            int smallest = 0;
            for (int k = 1; k < free; k++)
            {
                if (part[k] < part[smallest])
                {
                    smallest = k;
                }
            }
            part[smallest] *= factors.get(i);
        }
        Arrays.sort(part);
        for (int i = 0, k = free - 1; i < dims.length; i++)
        {
            if (dims[i] == 0)
            {
                dims[i] = part[k--];
            }
        }
    }
}
