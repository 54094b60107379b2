package org.shmpi.report;

/**
 * Every MPI call the report counts, by the name of its Java method ({@code Win.} and
 * {@code File.} for windows and files). The ordinal is the index of a call in a rank's arrays.
 */
public enum CallKind
{
    SEND("send", Family.P2P),
    B_SEND("bSend", Family.P2P),
    S_SEND("sSend", Family.P2P),
    R_SEND("rSend", Family.P2P),
    RECV("recv", Family.P2P),
    SEND_RECV("sendRecv", Family.P2P),
    SEND_RECV_REPLACE("sendRecvReplace", Family.P2P),
    I_SEND("iSend", Family.P2P),
    IB_SEND("ibSend", Family.P2P),
    IS_SEND("isSend", Family.P2P),
    IR_SEND("irSend", Family.P2P),
    I_RECV("iRecv", Family.P2P),
    PROBE("probe", Family.P2P),
    I_PROBE("iProbe", Family.P2P),
    M_PROBE("mProbe", Family.P2P),
    IM_PROBE("imProbe", Family.P2P),
    M_RECV("mRecv", Family.P2P),
    IM_RECV("imRecv", Family.P2P),
    START("start", Family.P2P),
    START_ALL("startAll", Family.P2P),
    WAIT("wait", Family.P2P),
    WAIT_ALL("waitAll", Family.P2P),
    WAIT_ANY("waitAny", Family.P2P),
    WAIT_SOME("waitSome", Family.P2P),
    TEST("test", Family.P2P),
    TEST_ALL("testAll", Family.P2P),
    TEST_ANY("testAny", Family.P2P),
    TEST_SOME("testSome", Family.P2P),
    CANCEL("cancel", Family.P2P),
    BARRIER("barrier", Family.COLLECTIVE),
    BCAST("bcast", Family.COLLECTIVE),
    REDUCE("reduce", Family.COLLECTIVE),
    ALL_REDUCE("allReduce", Family.COLLECTIVE),
    GATHER("gather", Family.COLLECTIVE),
    GATHERV("gatherv", Family.COLLECTIVE),
    SCATTER("scatter", Family.COLLECTIVE),
    SCATTERV("scatterv", Family.COLLECTIVE),
    ALL_GATHER("allGather", Family.COLLECTIVE),
    ALL_GATHERV("allGatherv", Family.COLLECTIVE),
    ALL_TO_ALL("allToAll", Family.COLLECTIVE),
    ALL_TO_ALLV("allToAllv", Family.COLLECTIVE),
    ALL_TO_ALLW("allToAllw", Family.COLLECTIVE),
    REDUCE_SCATTER("reduceScatter", Family.COLLECTIVE),
    REDUCE_SCATTER_BLOCK("reduceScatterBlock", Family.COLLECTIVE),
    SCAN("scan", Family.COLLECTIVE),
    EX_SCAN("exScan", Family.COLLECTIVE),
    REDUCE_LOCAL("reduceLocal", Family.COLLECTIVE),
    NEIGHBOR_ALL_GATHER("neighborAllGather", Family.COLLECTIVE),
    NEIGHBOR_ALL_GATHERV("neighborAllGatherv", Family.COLLECTIVE),
    NEIGHBOR_ALL_TO_ALL("neighborAllToAll", Family.COLLECTIVE),
    NEIGHBOR_ALL_TO_ALLV("neighborAllToAllv", Family.COLLECTIVE),
    NEIGHBOR_ALL_TO_ALLW("neighborAllToAllw", Family.COLLECTIVE),
    I_BARRIER("iBarrier", Family.COLLECTIVE),
    I_BCAST("iBcast", Family.COLLECTIVE),
    I_REDUCE("iReduce", Family.COLLECTIVE),
    I_ALL_REDUCE("iAllReduce", Family.COLLECTIVE),
    I_GATHER("iGather", Family.COLLECTIVE),
    I_GATHERV("iGatherv", Family.COLLECTIVE),
    I_SCATTER("iScatter", Family.COLLECTIVE),
    I_SCATTERV("iScatterv", Family.COLLECTIVE),
    I_ALL_GATHER("iAllGather", Family.COLLECTIVE),
    I_ALL_GATHERV("iAllGatherv", Family.COLLECTIVE),
    I_ALL_TO_ALL("iAllToAll", Family.COLLECTIVE),
    I_ALL_TO_ALLV("iAllToAllv", Family.COLLECTIVE),
    I_ALL_TO_ALLW("iAllToAllw", Family.COLLECTIVE),
    I_REDUCE_SCATTER("iReduceScatter", Family.COLLECTIVE),
    I_REDUCE_SCATTER_BLOCK("iReduceScatterBlock", Family.COLLECTIVE),
    I_SCAN("iScan", Family.COLLECTIVE),
    I_EX_SCAN("iExScan", Family.COLLECTIVE),
    I_NEIGHBOR_ALL_GATHER("iNeighborAllGather", Family.COLLECTIVE),
    I_NEIGHBOR_ALL_GATHERV("iNeighborAllGatherv", Family.COLLECTIVE),
    I_NEIGHBOR_ALL_TO_ALL("iNeighborAllToAll", Family.COLLECTIVE),
    I_NEIGHBOR_ALL_TO_ALLV("iNeighborAllToAllv", Family.COLLECTIVE),
    I_NEIGHBOR_ALL_TO_ALLW("iNeighborAllToAllw", Family.COLLECTIVE),
    COMM_DUP("dup", Family.OTHER),
    COMM_SPLIT("split", Family.OTHER),
    COMM_CREATE("create", Family.OTHER),
    COMM_CREATE_GROUP("createGroup", Family.OTHER),
    COMM_FREE("free", Family.OTHER),
    COMM_SPAWN("spawn", Family.OTHER),
    COMM_SPAWN_MULTIPLE("spawnMultiple", Family.OTHER),
    COMM_ACCEPT("accept", Family.OTHER),
    COMM_CONNECT("connect", Family.OTHER),
    COMM_DISCONNECT("disconnect", Family.OTHER),
    COMM_MERGE("merge", Family.OTHER),
    COMM_CART_CREATE("cartCreate", Family.OTHER),
    COMM_GRAPH_CREATE("graphCreate", Family.OTHER),
    COMM_DIST_GRAPH_CREATE("distGraphCreate", Family.OTHER),
    WIN_CREATE("Win.create", Family.RMA),
    WIN_ALLOCATE("Win.allocate", Family.RMA),
    WIN_ALLOCATE_SHARED("Win.allocateShared", Family.RMA),
    WIN_CREATE_DYNAMIC("Win.createDynamic", Family.RMA),
    WIN_FREE("Win.free", Family.RMA),
    WIN_PUT("Win.put", Family.RMA),
    WIN_GET("Win.get", Family.RMA),
    WIN_ACCUMULATE("Win.accumulate", Family.RMA),
    WIN_GET_ACCUMULATE("Win.getAccumulate", Family.RMA),
    WIN_FETCH_AND_OP("Win.fetchAndOp", Family.RMA),
    WIN_COMPARE_AND_SWAP("Win.compareAndSwap", Family.RMA),
    WIN_R_PUT("Win.rPut", Family.RMA),
    WIN_R_GET("Win.rGet", Family.RMA),
    WIN_R_ACCUMULATE("Win.rAccumulate", Family.RMA),
    WIN_R_GET_ACCUMULATE("Win.rGetAccumulate", Family.RMA),
    WIN_FENCE("Win.fence", Family.RMA),
    WIN_LOCK("Win.lock", Family.RMA),
    WIN_UNLOCK("Win.unlock", Family.RMA),
    WIN_LOCK_ALL("Win.lockAll", Family.RMA),
    WIN_UNLOCK_ALL("Win.unlockAll", Family.RMA),
    WIN_FLUSH("Win.flush", Family.RMA),
    WIN_FLUSH_ALL("Win.flushAll", Family.RMA),
    WIN_FLUSH_LOCAL("Win.flushLocal", Family.RMA),
    WIN_FLUSH_LOCAL_ALL("Win.flushLocalAll", Family.RMA),
    WIN_SYNC("Win.sync", Family.RMA),
    WIN_POST("Win.post", Family.RMA),
    WIN_START("Win.start", Family.RMA),
    WIN_COMPLETE("Win.complete", Family.RMA),
    WIN_WAIT_FOR("Win.waitFor", Family.RMA),
    WIN_TEST("Win.test", Family.RMA),
    FILE_OPEN("File.open", Family.IO),
    FILE_CLOSE("File.close", Family.IO),
    FILE_DELETE("File.delete", Family.IO),
    FILE_SET_VIEW("File.setView", Family.IO),
    FILE_SET_SIZE("File.setSize", Family.IO),
    FILE_PREALLOCATE("File.preallocate", Family.IO),
    FILE_SYNC("File.sync", Family.IO),
    FILE_SEEK("File.seek", Family.IO),
    FILE_SEEK_SHARED("File.seekShared", Family.IO),
    FILE_READ("File.read", Family.IO),
    FILE_READ_AT("File.readAt", Family.IO),
    FILE_READ_ALL("File.readAll", Family.IO),
    FILE_READ_AT_ALL("File.readAtAll", Family.IO),
    FILE_READ_SHARED("File.readShared", Family.IO),
    FILE_READ_ORDERED("File.readOrdered", Family.IO),
    FILE_I_READ("File.iRead", Family.IO),
    FILE_I_READ_AT("File.iReadAt", Family.IO),
    FILE_I_READ_ALL("File.iReadAll", Family.IO),
    FILE_I_READ_AT_ALL("File.iReadAtAll", Family.IO),
    FILE_I_READ_SHARED("File.iReadShared", Family.IO),
    FILE_READ_ALL_BEGIN("File.readAllBegin", Family.IO),
    FILE_READ_ALL_END("File.readAllEnd", Family.IO),
    FILE_READ_AT_ALL_BEGIN("File.readAtAllBegin", Family.IO),
    FILE_READ_AT_ALL_END("File.readAtAllEnd", Family.IO),
    FILE_READ_ORDERED_BEGIN("File.readOrderedBegin", Family.IO),
    FILE_READ_ORDERED_END("File.readOrderedEnd", Family.IO),
    FILE_WRITE("File.write", Family.IO),
    FILE_WRITE_AT("File.writeAt", Family.IO),
    FILE_WRITE_ALL("File.writeAll", Family.IO),
    FILE_WRITE_AT_ALL("File.writeAtAll", Family.IO),
    FILE_WRITE_SHARED("File.writeShared", Family.IO),
    FILE_WRITE_ORDERED("File.writeOrdered", Family.IO),
    FILE_I_WRITE("File.iWrite", Family.IO),
    FILE_I_WRITE_AT("File.iWriteAt", Family.IO),
    FILE_I_WRITE_ALL("File.iWriteAll", Family.IO),
    FILE_I_WRITE_AT_ALL("File.iWriteAtAll", Family.IO),
    FILE_I_WRITE_SHARED("File.iWriteShared", Family.IO),
    FILE_WRITE_ALL_BEGIN("File.writeAllBegin", Family.IO),
    FILE_WRITE_ALL_END("File.writeAllEnd", Family.IO),
    FILE_WRITE_AT_ALL_BEGIN("File.writeAtAllBegin", Family.IO),
    FILE_WRITE_AT_ALL_END("File.writeAtAllEnd", Family.IO),
    FILE_WRITE_ORDERED_BEGIN("File.writeOrderedBegin", Family.IO),
    FILE_WRITE_ORDERED_END("File.writeOrderedEnd", Family.IO);

    private static final CallKind[] ALL = values();

    private final String callName;
    private final Family family;

    CallKind(final String callName, final Family family)
    {
        this.callName = callName;
        this.family = family;
    }

    /** The Java method's name, e.g. {@code allReduce} or {@code File.writeAt}. */
    public String callName()
    {
        return callName;
    }

    /** What the call belongs to. */
    public Family family()
    {
        return family;
    }

    /** How many kinds. */
    public static int count()
    {
        return ALL.length;
    }

    /** The kind of ordinal {@code i}. */
    public static CallKind of(final int i)
    {
        return ALL[i];
    }

    /** The kind named {@code name} ({@link #callName()}), or null. */
    public static CallKind named(final String name)
    {
        for (final CallKind k : ALL)
        {
            if (k.callName.equals(name))
            {
                return k;
            }
        }
        return null;
    }
}
