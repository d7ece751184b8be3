# bench
