/**
 * The TCP bridge between nodes: {@link org.shmpi.bridge.NodeBridge} forwards the frames that this
 * node's ranks write into stand-in inboxes of remote ranks to the node of each, and writes the frames
 * coming from other nodes into this node's inboxes. The point-to-point engine, its protocols and its
 * matching stay one; only the rendezvous keeps shared-memory and process addresses out of frames for
 * a forwarded inbox. See docs/multi-node.md.
 */
package org.shmpi.bridge;
