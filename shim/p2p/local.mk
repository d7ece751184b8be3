# shim/p2p: point-to-point's MPI-free parts (docs/p2p.md): the matching
# engine (posted and unexpected queues of a communicator) and the channels'
# sequence numbers, duplicate suppression and determinant records.
libencore_la_SOURCES += \
	shim/p2p/match.c \
	shim/p2p/chanseq.c \
	shim/p2p/wire.c \
	shim/p2p/state.c \
	shim/p2p/det_store.c \
	shim/p2p/det_replica.c \
	shim/p2p/p2p.c \
	shim/p2p/conn.c \
	shim/p2p/conn_tx.c \
	shim/p2p/conn_rx.c \
	shim/p2p/progress.c \
	shim/p2p/shm_ring.c \
	shim/p2p/lend.c \
	shim/p2p/shm_link.c \
	shim/p2p/shm_wait.c \
	shim/p2p/tcp_lead.c \
	shim/p2p/tcp_wait.c \
	shim/p2p/conn_spill.c \
	shim/p2p/conn_trim.c \
	shim/p2p/remote.c \
	shim/p2p/checkpoint.c \
	shim/p2p/pool.c \
	shim/p2p/kept.c
noinst_HEADERS += \
	shim/p2p/match.h \
	shim/p2p/chanseq.h \
	shim/p2p/wire.h \
	shim/p2p/det_store.h \
	shim/p2p/det_replica.h \
	shim/p2p/p2p.h \
	shim/p2p/p2p_int.h \
	shim/p2p/conn.h \
	shim/p2p/conn_tx.h \
	shim/p2p/conn_rx.h \
	shim/p2p/conn_spill.h \
	shim/p2p/conn_trim.h \
	shim/p2p/progress.h \
	shim/p2p/tcp_lead.h \
	shim/p2p/tcp_wait.h \
	shim/p2p/shm_wait.h \
	shim/p2p/shm_ring.h \
	shim/p2p/lend.h \
	shim/p2p/shm_link.h \
	shim/p2p/pool.h \
	shim/p2p/remote.h \
	shim/p2p/kept.h \
	shim/p2p/spin_adapt.h
