package mpi;

import org.shmpi.shm.BlockedCall;

/**
 * Java binding of an inter-communicator (MPI-2.2 section 6.6): two disjoint groups, the local
 * one this process belongs to and the remote one. {@code getRank}, {@code getSize} and
 * {@code getGroup} describe the local group; every point-to-point rank (destination, source,
 * {@code Status.getSource}) names a process of the remote group. Made by
 * {@link Comm#createIntercomm}; {@link #merge} turns one into an intra-communicator.
 */
public final class Intercomm extends Comm
{
    /** At the root of a connection to a job on another machine: the gateway, closed at disconnect. */
    JobGateway gateway;

    Intercomm(final String name)
    {
        super(name);
    }

    /** Java binding of {@code MPI_COMM_REMOTE_SIZE}: number of processes in the remote group. */
    public int getRemoteSize()
    {
        try
        {
            check();
            return peers.length;
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_COMM_REMOTE_GROUP}: the remote group, in its rank order (a new group). */
    public Group getRemoteGroup()
    {
        try
        {
            check();
            return new Group(peers.clone());
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_INTERCOMM_MERGE}: an intra-communicator of both groups. The
     * group whose processes pass {@code high = false} comes first; when both pass the same value,
     * the group whose rank 0 has the lower rank in {@code MPI.COMM_WORLD} comes first. Each group
     * takes its rank 0's value. Collective over both groups; the result gets this communicator's
     * error handler.
     */
    public Intracomm merge(final boolean high)
    {
        final Recorder r = Profile.begin(Calls.COMM_MERGE);
        final Intracomm result = merge0(high);
        Profile.end(r, Calls.COMM_MERGE);
        return result;
    }

    private Intracomm merge0(final boolean high)
    {
        try
        {
            check();
            int[] flags = null;
            if (myRank == 0)
            {
                final int[] theirs = CommConstruction.exchangeInts(collContextId, peers[0], CommConstruction.TAG_BRIDGE,
                    new int[] {high ? 1 : 0}, BlockedCall.BARRIER);
                flags = new int[] {high ? 1 : 0, theirs[0]};
            }
            flags = CommConstruction.bcastInts(localView(), flags, 0, BlockedCall.BARRIER);
            final boolean localHigh = flags[0] == 1;
            final boolean remoteHigh = flags[1] == 1;
            final boolean localFirst = localHigh != remoteHigh ? !localHigh : members[0] < peers[0];
            final int[] merged = new int[members.length + peers.length];
            final int[] first = localFirst ? members : peers;
            final int[] second = localFirst ? peers : members;
            System.arraycopy(first, 0, merged, 0, first.length);
            System.arraycopy(second, 0, merged, first.length, second.length);
            final int newRank = localFirst ? myRank : peers.length + myRank;
            final int[] ids = ContextAgreement.run(members, myRank, 0, collContextId, ContextAgreement.BLOCKING,
                CommConstruction.bridgeToRemote(this), BlockedCall.BARRIER);
            final Intracomm m = new Intracomm("");
            m.bind(merged, newRank, ids[0], ids[1]);
            m.errhandler = errhandler;
            MPI.nameContexts(m, "merge of " + getName());
            return m;
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** The local group as a communicator on this one's contexts, for group-internal exchanges. */
    private Comm localView()
    {
        final Comm view = new Comm(getName() + " (local group)");
        view.bind(members, myRank, contextId, collContextId);
        return view;
    }

    /**
     * Java binding of {@code MPI_COMM_DUP} on an inter-communicator: the same two groups on new
     * context ids, with this one's error handler, hints and copied attributes. Collective over
     * both groups.
     */
    @Override
    public Intercomm dup()
    {
        return CommConstruction.duplicate(this, new Intercomm(""));
    }

    /** {@link #dup()}, as in Open MPI. */
    @Override
    public Intercomm clone()
    {
        return dup();
    }

    /** Java binding of {@code MPI_COMM_DUP_WITH_INFO}: {@link #dup()} with {@code newInfo}'s hints. */
    @Override
    public Intercomm dupWithInfo(final Info newInfo)
    {
        final Info hints = CommConstruction.hintsOfDup(this, newInfo);
        return CommConstruction.hinted(dup(), hints);
    }

    /** Java binding of {@code MPI_COMM_IDUP} (see {@link Comm#iDup()}). */
    @Override
    public Intercomm iDup()
    {
        return CommConstruction.duplicateNonblocking(this, new Intercomm(""));
    }

    /** Always true (Java binding of {@code MPI_COMM_TEST_INTER}). */
    @Override
    public boolean isInter()
    {
        check();
        return true;
    }

    /**
     * Java binding of {@code MPI_COMM_GET_PARENT}: the inter-communicator to the processes that
     * spawned this one (made during its {@code MPI.Init}); for a process that was not spawned a
     * null communicator ({@link #isNull()} true), as MPI specifies.
     */
    public static Intercomm getParent()
    {
        MPI.check();
        final Intercomm p = Spawns.parent();
        return p != null ? p : new Intercomm("MPI_COMM_NULL");
    }
}
