# VRED_STATS (tests/mpi/stats.c, stats.sh): a known mix of calls counted exactly, through
# vred_mpi_stats() and the `vred-stats` lines of MPI_Finalize, on 2 and 3 ranks; gathered and
# summed on rank 0; with VRED_DISABLE=1; where bcast/allgather's shared memory cannot be had
# (VRED_SHM=off, one rank per node, two nodes); and nothing printed without VRED_STATS.
# Included once per flavor from CMakeLists.txt (flavor, mpiexec, ompi).
set(t test_mpi_stats_${flavor})
add_executable(${t} stats.c)
target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(${t} PRIVATE vred_mpi_${flavor} vred_mpi_deps_${flavor})
target_link_options(${t} PRIVATE "LINKER:--no-as-needed")
set(sh ${CMAKE_CURRENT_SOURCE_DIR}/stats.sh)
set(exe $<TARGET_FILE:${t}>)
set(names "")
foreach(run "on;2" "on;3" "gather;3" "sum;3" "off;2")
  list(GET run 0 mode)
  list(GET run 1 np)
  add_test(NAME mpi_stats_${flavor}_${mode}_np${np}
    COMMAND ${sh} ${mode} ${np} ${mpiexec} -- ${exe})
  list(APPEND names mpi_stats_${flavor}_${mode}_np${np})
endforeach()
add_test(NAME mpi_stats_${flavor}_disabled COMMAND ${sh} on 2 ${mpiexec} -- ${exe} --disabled)
set_tests_properties(mpi_stats_${flavor}_disabled PROPERTIES ENVIRONMENT "VRED_DISABLE=1")
add_test(NAME mpi_stats_${flavor}_shmoff
  COMMAND ${sh} on 2 ${mpiexec} -- ${exe} --bcast-reason=shm-off --allgather-reason=shm-off)
set_tests_properties(mpi_stats_${flavor}_shmoff PROPERTIES ENVIRONMENT "VRED_SHM=off")
add_test(NAME mpi_stats_${flavor}_node1
  COMMAND ${sh} on 2 ${mpiexec} -- ${exe} --bcast-reason=one-per-node
          --allgather-reason=one-per-node)
set_tests_properties(mpi_stats_${flavor}_node1 PROPERTIES ENVIRONMENT "VRED_NODE_SIZE=1")
add_test(NAME mpi_stats_${flavor}_node2
  COMMAND ${sh} on 4 ${mpiexec} -- ${exe} --allgather-reason=multi-node --multi-node)
set_tests_properties(mpi_stats_${flavor}_node2 PROPERTIES ENVIRONMENT "VRED_NODE_SIZE=2")
list(APPEND names mpi_stats_${flavor}_disabled mpi_stats_${flavor}_shmoff
  mpi_stats_${flavor}_node1 mpi_stats_${flavor}_node2)
set_tests_properties(${names} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS mpi_stats)
