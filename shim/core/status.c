/* status.c - encore_strerror(). */
#include "enc.h"

const char *encore_strerror(int status)
{
    switch (status) {
    case ENC_OK: return "success";
    case ENC_INPROGRESS: return "in progress";
    case ENC_ERR_INVAL: return "invalid argument";
    case ENC_ERR_NOMEM: return "out of memory";
    case ENC_ERR_PROTO: return "malformed or unexpected message";
    case ENC_ERR_AUTH: return "authentication failed";
    case ENC_ERR_TIMEOUT: return "timed out";
    case ENC_ERR_UNSUPPORTED: return "not supported in encore mode";
    case ENC_ERR_MISMATCH: return "ranks called the collective with different arguments";
    case ENC_ERR_SYS: return "system call failed";
    case ENC_ERR_DIVERGED: return "replay divergence";
    case ENC_ERR_LOST: return "logged results lost";
    case ENC_ERR_ABORTED: return "job aborted";
    case ENC_ERR_STATE: return "invalid state";
    case ENC_ERR_NOT_FOUND: return "not found";
    case ENC_ERR_PEER_CLOSED: return "peer closed the connection";
    case ENC_ERR_PEER_RESET: return "connection to peer failed";
    case ENC_ERR_EPOCH: return "membership changed";
    default: return "unknown error";
    }
}
