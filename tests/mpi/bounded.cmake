# Bounded resources and one rank failing (issue 15, items 4 and 5; docs/shm.md, "Bounded
# resources", docs/reliability.md, "One rank failing"). Included from CMakeLists.txt inside its
# per-flavor loop: flavor, launch, mpiexec, ompi are set.
set(bounded_names "")

# 1,000 live communicators, each used once, under a 64 MiB /dev/shm (many_comms.sh: a private
# tmpfs in a mount namespace; skipped without one). The regions reach the automatic
# VRED_SHM_LIMIT (64 MiB / 2 / ranks), so later communicators go point-to-point with one warning;
# then the scratch rules (VRED_SCRATCH_LIMIT=64 MiB). MPICH busy-polls: 2 ranks.
set(t test_mpi_many_comms_${flavor})
add_executable(${t} many_comms.c proc_usage.c)
target_link_libraries(${t} PRIVATE vred_mpi_${flavor} vred_mpi_deps_${flavor})
target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_link_options(${t} PRIVATE "LINKER:--no-as-needed")
if(ompi)
  set(np_many 3)
else()
  set(np_many 2)
endif()
add_test(NAME mpi_bounded_${flavor}_many_comms
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/many_comms.sh ${np_many} ${mpiexec} --
          $<TARGET_FILE:${t}> --comms 1000 --expect-fallback --min-shm-free 16 --scratch)
# (Alone: 2 MPICH ranks beside another busy-polling job took 366 s instead of 2.) The half of
# /dev/shm that vred leaves is the MPI's: MPICH 5.0 alone, 1,000 communicators of 10 allreduces
# each, fills 43 of the 64 MiB with its collectives' segments (MPIR_CVAR_COLL_SHM_LIMIT_PER_NODE
# bounds them), so the free space measures vred's bound only with the MPI's kept at 8 MiB. Intel
# MPI 2021.18.1 alone makes about 150 KiB of /dev/shm for each communicator that runs a small
# allreduce and dies of SIGBUS when it is full (300 communicators took 45 MiB), so its
# collectives inside a node go point to point here (I_MPI_COLL_INTRANODE=pt2pt).
# The named segment (VRED_SHM_MEMFD=off): vred's regions then live in that /dev/shm, whose free
# space the test checks; a memfd takes none of it (the bound itself holds for both).
set_tests_properties(mpi_bounded_${flavor}_many_comms PROPERTIES
  ENVIRONMENT "VRED_SHM_MEMFD=off;VRED_SCRATCH_LIMIT=67108864;MPIR_CVAR_COLL_SHM_LIMIT_PER_NODE=8192;I_MPI_COLL_INTRANODE=pt2pt"
  RUN_SERIAL ON)
# VRED_COMM_LIMIT: past 100 communicators with vred's state, the MPI serves the others; after
# all are freed vred serves again.
add_test(NAME mpi_bounded_${flavor}_comm_limit
  COMMAND ${mpiexec} -np 2 $<TARGET_FILE:${t}> --comms 150 --comm-limit 100)
set_tests_properties(mpi_bounded_${flavor}_comm_limit PROPERTIES ENVIRONMENT "VRED_COMM_LIMIT=100")
list(APPEND bounded_names mpi_bounded_${flavor}_many_comms mpi_bounded_${flavor}_comm_limit)

# One rank failing inside each algorithm family (fail_one.sh: VRED_TEST_FAIL on world rank 1 or
# 2, each case under a 60 s limit): every rank gets an MPI error, or the job aborts with vred's
# message; a hang fails the test.
set(t test_mpi_fail_one_${flavor})
add_executable(${t} fail_one.c)
target_link_libraries(${t} PRIVATE vred_mpi_${flavor} vred_mpi_deps_${flavor})
target_link_options(${t} PRIVATE "LINKER:--no-as-needed")
add_test(NAME mpi_bounded_${flavor}_fail_one
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/fail_one.sh ${mpiexec} -- $<TARGET_FILE:${t}>)
list(APPEND bounded_names mpi_bounded_${flavor}_fail_one)

set_tests_properties(${bounded_names} PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77 LABELS mpi_bounded)
