encore[rank 0] tracker: error: tracker lost: peer closed the connection; exiting
encore[rank 3] tracker: error: tracker lost: peer closed the connection; exiting
encore[rank 1] tracker: error: tracker lost: peer closed the connection; exiting
encore[rank 2] tracker: error: tracker lost: peer closed the connection; exiting
