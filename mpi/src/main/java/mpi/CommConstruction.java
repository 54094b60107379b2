package mpi;

import java.util.Arrays;

import org.shmpi.coll.IntCollectives;
import org.shmpi.coll.Members;
import org.shmpi.coll.Schedule;
import org.shmpi.ring.ContextIds;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * How communicators are made and unmade, behind {@link Comm}'s construction methods: duplicates
 * (blocking and not), communicators of a subset ({@link #createOn}, for split, create and the
 * topologies), inter-communicators, comparison, and freeing. The members agree on context ids
 * with a {@link ContextAgreement}; the small int collectives the constructions need run on the
 * parent's collective context under internal tags of their own.
 */
final class CommConstruction
{
    /**
     * Internal tags on the collective context start here (the barrier uses 0..31, the context
     * agreement the next four).
     */
    private static final int TAG_MASK = 1 << 20;
    private static final int TAG_GATHER = TAG_MASK + 4;
    private static final int TAG_ALL = TAG_MASK + 5;
    private static final int TAG_BCAST = TAG_MASK + 6;
    /** The link between an inter-communicator's two rank 0s. */
    static final int TAG_BRIDGE = TAG_MASK + 7;

    private CommConstruction()
    {
    }

    // ------------------------------------------------------------------------------------------
    // Comparison

    /** {@code Comm.compare}: {@code MPI.IDENT}, {@code CONGRUENT}, {@code SIMILAR} or {@code UNEQUAL}. */
    static int compare(final Comm comm1, final Comm comm2)
    {
        MPI.check();
        for (final Comm c : new Comm[] {comm1, comm2})
        {
            if (c == null || c.members == null)
            {
                throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_COMM,
                    "compare: invalid communicator: " + c));
            }
        }
        if (comm1 == comm2)
        {
            return MPI.IDENT;
        }
        if (comm1.peers != comm1.members || comm2.peers != comm2.members)
        {
            // Inter-communicators: both groups must compare; the weaker answer wins.
            if ((comm1.peers != comm1.members) != (comm2.peers != comm2.members))
            {
                return MPI.UNEQUAL;
            }
            final int local = Group.compare(new Group(comm1.members), new Group(comm2.members));
            final int remote = Group.compare(new Group(comm1.peers), new Group(comm2.peers));
            if (local == MPI.UNEQUAL || remote == MPI.UNEQUAL)
            {
                return MPI.UNEQUAL;
            }
            return local == MPI.IDENT && remote == MPI.IDENT ? MPI.CONGRUENT : MPI.SIMILAR;
        }
        final int groups = Group.compare(new Group(comm1.members), new Group(comm2.members));
        return groups == MPI.IDENT ? MPI.CONGRUENT : groups;
    }

    // ------------------------------------------------------------------------------------------
    // Duplicates

    /** Makes {@code into} a duplicate of {@code comm} (see {@link Comm#dup()}). */
    static <C extends Comm> C duplicate(final Comm comm, final C into)
    {
        try
        {
            comm.check();
            final Comm target = into;
            final int[] ids = ContextAgreement.run(comm.members, comm.myRank, 0, comm.collContextId,
                ContextAgreement.BLOCKING, bridgeToRemote(comm), BlockedCall.BARRIER);
            target.bindInter(comm.members, comm.myRank, comm.peers, ids[0], ids[1]);
            target.errhandler = comm.errhandler;
            synchronized (comm)
            {
                target.info = comm.info.dup();
            }
            MPI.nameContexts(target, "dup of " + comm.getName());
            try
            {
                comm.attributes.copyInto(comm, target.attributes, target);
            }
            catch (final RuntimeException ex)
            {
                release(target);
                throw ex;
            }
            return into;
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
    }

    /** Makes {@code into} a duplicate of {@code comm} without blocking (see {@link Comm#iDup()}). */
    static <C extends Comm> C duplicateNonblocking(final Comm comm, final C into)
    {
        try
        {
            comm.check();
            final Comm target = into;
            target.errhandler = comm.errhandler;
            synchronized (comm)
            {
                target.info = comm.info.dup();
            }
            RuntimeException copyFailure = null;
            try
            {
                comm.attributes.copyInto(comm, target.attributes, target);
            }
            catch (final RuntimeException ex)
            {
                copyFailure = ex;
            }
            final RuntimeException failed = copyFailure;
            final int[] local = comm.members;
            final int[] remote = comm.peers;
            final int me = comm.myRank;
            final String parent = comm.getName();
            final int sequence = nextNonblockingAgreement(comm);
            final ContextAgreement agreement = new ContextAgreement(MPI.context().contexts(), local, me, 0,
                comm.collContextId, sequence, bridgeToRemote(comm, ContextAgreement.tags(sequence)));
            agreement.then(step ->
            {
                final int[] ids = agreement.result();
                if (failed != null)
                {
                    // Every member took part; this one gives its ids back and reports the copy's failure.
                    MPI.context().contexts().release(ids[0]);
                    MPI.context().contexts().release(ids[1]);
                    throw new ShmpiException(errorClassOf(failed), "iDup: an attribute copy callback failed: " +
                        failed, failed);
                }
                target.bindInter(local, me, remote, ids[0], ids[1]);
                MPI.nameContexts(target, "dup of " + parent);
                return null;
            });
            final Schedule schedule = new Schedule(MPI.context(), "iDup of " + parent, agreement.first());
            target.creation = new Request(comm, schedule.request(), null);
            schedule.start();
            return into;
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
    }

    private static int errorClassOf(final RuntimeException failed)
    {
        if (failed instanceof MPIException)
        {
            return ((MPIException)failed).getErrorClass();
        }
        return failed instanceof ShmpiException ? ((ShmpiException)failed).errorClass() : ErrorClass.ERR_OTHER;
    }

    /**
     * The tag set of {@code comm}'s next nonblocking agreement: the number of {@link Comm#iDup}
     * calls on it so far, so that several in progress at once (and a blocking one meanwhile) keep
     * their messages apart. Every member calls iDup in the same order (MPI orders collectives),
     * so the numbers match.
     */
    private static int nextNonblockingAgreement(final Comm comm)
    {
        synchronized (comm)
        {
            return comm.nonblockingAgreements++ % ContextAgreement.BLOCKING;
        }
    }

    /**
     * The hints {@code dupWithInfo(newInfo)} gives the new communicator: a copy of
     * {@code newInfo}'s, none for {@code MPI.INFO_NULL}; {@code MPI.ERR_INFO} (through
     * {@code comm}'s handler) for a freed or null info.
     */
    static Info hintsOfDup(final Comm comm, final Info newInfo)
    {
        try
        {
            comm.check();
            if (newInfo == MPI.INFO_NULL)
            {
                return new Info();
            }
            if (newInfo == null || newInfo.isNull())
            {
                throw new MPIException(ErrorClass.ERR_INFO, "dupWithInfo: null or freed info");
            }
            return newInfo.dup();
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
    }

    /** {@code comm}, its hints replaced by {@code hints} (which it now owns). */
    static <C extends Comm> C hinted(final C comm, final Info hints)
    {
        synchronized (comm)
        {
            ((Comm)comm).info = hints;
        }
        return comm;
    }

    // ------------------------------------------------------------------------------------------
    // Communicators of a subset, inter-communicators

    /**
     * Makes {@code into} a communicator of the world ranks {@code sub} (which hold this process)
     * on context ids its members agree on over {@code parent}'s collective context; it gets
     * {@code parent}'s error handler. Collective over {@code sub}'s members only.
     */
    static <C extends Comm> C createOn(final Comm parent, final int[] sub, final C into, final String statusName)
    {
        final int me = MPI.COMM_WORLD.myRank;
        int index = -1;
        for (int i = 0; i < sub.length; i++)
        {
            if (sub[i] == me)
            {
                index = i;
            }
        }
        final Comm group = new Comm(statusName);
        group.bind(sub, index, parent.contextId, parent.collContextId);
        final int[] ids = agreeContexts(group, BlockedCall.BARRIER);
        final Comm target = into;
        target.bind(sub, index, ids[0], ids[1]);
        target.errhandler = parent.errhandler;
        MPI.nameContexts(target, statusName);
        return into;
    }

    /**
     * Agrees with the other members of {@code comm} on two context ids free on all of them, and
     * reserves them here ({@link ContextAgreement}, rooted at rank 0). Collective over
     * {@code comm}, on its collective context.
     */
    static int[] agreeContexts(final Comm comm, final int call)
    {
        return ContextAgreement.run(comm.members, comm.myRank, 0, comm.collContextId, ContextAgreement.BLOCKING,
            null, call);
    }

    /**
     * On an inter-communicator's rank 0, the link to the remote group's rank 0 over the
     * collective context; null elsewhere and on an intra-communicator.
     */
    static ContextAgreement.Bridge bridgeToRemote(final Comm comm)
    {
        return bridgeToRemote(comm, TAG_BRIDGE);
    }

    /** {@link #bridgeToRemote(Comm)} with messages of {@code tag}. */
    private static ContextAgreement.Bridge bridgeToRemote(final Comm comm, final int tag)
    {
        return comm.isInter() && comm.myRank == 0 ?
            new ContextAgreement.Bridge(comm.collContextId, comm.peers[0], tag) : null;
    }

    /** {@code createIntercomm}, called on the peer communicator {@code peer} (see {@link Comm#createIntercomm}). */
    static Intercomm createIntercomm(
        final Comm peer, final Comm localComm, final int localLeader, final int remoteLeader, final int tag)
    {
        try
        {
            MPI.check();
            if (localComm == null || localComm.members == null || localComm.isInter())
            {
                throw new MPIException(ErrorClass.ERR_COMM,
                    "createIntercomm: localComm must be an intra-communicator: " + localComm);
            }
            if (localLeader < 0 || localLeader >= localComm.members.length)
            {
                throw new MPIException(ErrorClass.ERR_RANK, "createIntercomm: invalid local leader: localLeader=" +
                    localLeader + ", size=" + localComm.members.length);
            }
            PointToPoint.checkSendTag(tag);
            final boolean leader = localComm.myRank == localLeader;
            // The leader sends its group [0 = ok, remote world ranks...] or [error class] when it
            // cannot reach the other group, so that no member waits for a group that never comes.
            int[] fromLeader = null;
            ContextAgreement.Bridge bridge = null;
            if (leader)
            {
                final int problem = leaderProblem(peer, localComm, remoteLeader);
                if (problem != 0)
                {
                    fromLeader = new int[] {problem};
                }
                else
                {
                    final int remoteWorld = peer.peers[remoteLeader];
                    final int[] theirs = exchangeInts(peer.contextId, remoteWorld, tag, localComm.members,
                        BlockedCall.BARRIER);
                    fromLeader = new int[theirs.length + 1];
                    System.arraycopy(theirs, 0, fromLeader, 1, theirs.length);
                    bridge = new ContextAgreement.Bridge(peer.contextId, remoteWorld, tag);
                }
            }
            fromLeader = bcastInts(localComm, fromLeader, localLeader, BlockedCall.BARRIER);
            if (fromLeader[0] != 0)
            {
                throw new MPIException(fromLeader[0], "createIntercomm: the local leader (rank " + localLeader +
                    ") cannot reach remote leader " + remoteLeader + " through " + peer.getName());
            }
            final int[] remote = Arrays.copyOfRange(fromLeader, 1, fromLeader.length);
            checkDisjoint(localComm, remote);
            final int[] ids = ContextAgreement.run(localComm.members, localComm.myRank, localLeader,
                localComm.collContextId, ContextAgreement.BLOCKING, bridge, BlockedCall.BARRIER);
            final Intercomm ic = new Intercomm("");
            ic.bindInter(localComm.members, localComm.myRank, remote, ids[0], ids[1]);
            ic.errhandler = localComm.errhandler;
            MPI.nameContexts(ic, "intercomm of " + localComm.getName());
            return ic;
        }
        catch (final RuntimeException ex)
        {
            throw peer.handle(ex);
        }
    }

    /**
     * Why the local leader cannot reach {@code remoteLeader} through the peer communicator
     * {@code peer}: an error class, or 0.
     */
    private static int leaderProblem(final Comm peer, final Comm localComm, final int remoteLeader)
    {
        if (peer.members == null)
        {
            return ErrorClass.ERR_COMM;
        }
        if (remoteLeader < 0 || remoteLeader >= peer.peers.length)
        {
            return ErrorClass.ERR_RANK;
        }
        // The remote leader must lie outside the local group.
        return PointToPoint.commRankOf(localComm, peer.peers[remoteLeader]) != MPI.UNDEFINED ?
            ErrorClass.ERR_ARG : 0;
    }

    /** {@code MPI.ERR_ARG} when a world rank of {@code remote} is in {@code localComm} too. */
    private static void checkDisjoint(final Comm localComm, final int[] remote)
    {
        for (final int w : remote)
        {
            if (PointToPoint.commRankOf(localComm, w) != MPI.UNDEFINED)
            {
                // Every process of both groups sees both lists, so all fail alike.
                throw new MPIException(ErrorClass.ERR_ARG, "createIntercomm: the groups overlap: world rank " + w +
                    " is in both");
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Freeing

    /** {@code disconnect}: a barrier, then {@link #free}. */
    static void disconnect(final Comm comm)
    {
        comm.check();
        if (comm.predefined())
        {
            throw comm.handle(new MPIException(ErrorClass.ERR_COMM,
                "a predefined communicator cannot be disconnected: " + comm.getName()));
        }
        Collectives.barrier(comm, BlockedCall.BARRIER);
        // Processes of another job (a port, a spawn): their inboxes are unmapped, so that a job
        // that has ended leaves nothing mapped here.
        Connections.remove(comm.peers);
        MPI.context().forgetForeign(comm.peers);
        if (comm instanceof Intercomm && ((Intercomm)comm).gateway != null)
        {
            ((Intercomm)comm).gateway.close();
            ((Intercomm)comm).gateway = null;
        }
        free(comm);
    }

    /** {@code free}: deletes the attributes, gives back the context ids, makes {@code comm} null. */
    static void free(final Comm comm)
    {
        comm.check();
        if (comm.predefined())
        {
            throw comm.handle(new MPIException(ErrorClass.ERR_COMM, "a predefined communicator cannot be freed: " +
                comm.getName()));
        }
        try
        {
            comm.attributes.clear(comm);
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
        release(comm);
    }

    /** Gives back a created communicator's context ids and makes it null. */
    private static void release(final Comm comm)
    {
        if (comm.nodeLevels != null)
        {
            comm.nodeLevels.free();
            comm.nodeLevels = null;
        }
        comm.coll().close();
        final ContextIds ids = MPI.context().contexts();
        MPI.forgetContexts(comm);
        ids.release(comm.contextId);
        ids.release(comm.collContextId);
        comm.members = null;
        comm.peers = null;
    }

    // ------------------------------------------------------------------------------------------
    // The int collectives constructions use (on the collective context, under internal tags)

    /**
     * Every member's {@code mine} (all the same length), in rank order, on every member of
     * {@code comm}: the collective engine's allgather. Collective over {@code comm}.
     */
    static int[] allgatherInts(final Comm comm, final int[] mine, final int call)
    {
        return IntCollectives.allgather(intMembers(comm, TAG_GATHER), mine, call);
    }

    /** Every member's {@code mine}, of any length (zero too), on every member, indexed by rank. */
    static int[][] allgathervInts(final Comm comm, final int[] mine, final int call)
    {
        return IntCollectives.allgatherv(intMembers(comm, TAG_ALL), mine, call);
    }

    /** {@code data} of member {@code root} (any length; ignored elsewhere), on every member. */
    static int[] bcastInts(final Comm comm, final int[] data, final int root, final int call)
    {
        return IntCollectives.bcast(intMembers(comm, TAG_BCAST), root, data, call);
    }

    /**
     * Sends {@code mine} to world rank {@code peer} and returns what it sent, on {@code context}
     * with {@code tag}; both sides call it.
     */
    static int[] exchangeInts(final int context, final int peer, final int tag, final int[] mine, final int call)
    {
        return IntCollectives.exchange(MPI.context(), context, peer, tag, mine, call);
    }

    /** The members of an int collective on {@code comm}, on its collective context with internal tag {@code tag}. */
    private static Members intMembers(final Comm comm, final int tag)
    {
        return new Members(MPI.context(), comm.members, comm.myRank, comm.collContextId, tag);
    }
}
