# Counts past 2^31 (tests/mpi/large.c, issue 15 item 3): allreduce, reduce and
# reduce_scatter_block beyond 2^31 u8 elements and beyond 2^32 bytes of f32 through the MPI-4 _c
# forms, each algorithm family forced and auto, every element checked. Label `large`, outside
# `make test` (~10 GiB of memory, minutes): `make test-large`. Skips (77) on an MPI without the
# _c forms. Included once per flavor from CMakeLists.txt (flavor, mpiexec).
set(t test_mpi_large_${flavor})
add_executable(${t} large.c)
target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(${t} PRIVATE vred_mpi_${flavor} vred_mpi_deps_${flavor})
target_link_options(${t} PRIVATE "LINKER:--no-as-needed")
add_test(NAME mpi_large_${flavor} COMMAND ${mpiexec} -np 2 $<TARGET_FILE:${t}>)
set_tests_properties(mpi_large_${flavor} PROPERTIES TIMEOUT 1800 SKIP_RETURN_CODE 77 LABELS large)
