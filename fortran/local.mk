# fortran: Fortran entry points (not built yet)
