# Faults, threads and the region's security (issue 6; docs/reliability.md), per MPI flavor.
# Included from CMakeLists.txt inside its per-flavor loop: flavor, launch, mpiexec, ompi are set.
# About 1 min per MPI on 2 cores when idle (3-6 min with the machine busy).
set(faults_names "")

# Soak: mixed collectives of random kinds, types, roots, sizes and algorithms (soak_mix.c), every
# result checked, no growth in memory, mappings or descriptors over the second half. 10^6 calls
# (soak_mixed --soak-mixed 1000000, by hand) took 17 min on Open MPI, 3 ranks, on the busy 2-core
# VM; ctest runs 50,000 (~30 s idle). MPICH busy-polls, so oversubscribed it is slow: 2 ranks.
set(t test_mpi_soak_mixed_${flavor})
add_executable(${t} soak_mixed.c soak_mix.c proc_usage.c)
target_link_libraries(${t} PRIVATE vred_mpi_${flavor} vred_mpi_deps_${flavor} Threads::Threads)
target_link_options(${t} PRIVATE "LINKER:--no-as-needed")
if(ompi)
  add_test(NAME mpi_faults_${flavor}_soak_mixed
    COMMAND ${mpiexec} -np 3 $<TARGET_FILE:${t}> --soak-mixed 50000)
else()
  add_test(NAME mpi_faults_${flavor}_soak_mixed
    COMMAND ${mpiexec} -np 2 $<TARGET_FILE:${t}> --soak-mixed 50000)
endif()
list(APPEND faults_names mpi_faults_${flavor}_soak_mixed)

# /dev/shm absent (a private mount namespace with a /dev of its own): one warning, vred's
# point-to-point algorithms, the MPI's results. Open MPI only, as shm_full: its TCP transport
# needs no /dev/shm. (shm_full.sh --readonly, an empty read-only /dev/shm, passes as well; it
# adds nothing in CI that these two do not cover.)
if(ompi)
  add_test(NAME mpi_faults_${flavor}_shm_absent
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/shm_full.sh --absent ${mpiexec} --
            $<TARGET_FILE:test_mpi_coll_${flavor}>)
  list(APPEND faults_names mpi_faults_${flavor}_shm_absent)
endif()

# Threads. MPI_THREAD_MULTIPLE: several threads per rank, each on its own communicator (and
# communicators made and freed while the others run), mixed collectives checked exactly.
set(t test_mpi_threads_multi_${flavor})
add_executable(${t} threads_multi.c soak_mix.c)
target_link_libraries(${t} PRIVATE vred_mpi_${flavor} vred_mpi_deps_${flavor} Threads::Threads)
target_link_options(${t} PRIVATE "LINKER:--no-as-needed")
if(ompi)
  set(faults_iters 1000)
else()
  set(faults_iters 300)
endif()
add_test(NAME mpi_faults_${flavor}_threads_multi
  COMMAND ${mpiexec} -np 3 $<TARGET_FILE:${t}> --threads 4 --iters ${faults_iters})
list(APPEND faults_names mpi_faults_${flavor}_threads_multi)

# MPI_THREAD_FUNNELED with the pool on (VRED_THREADS=2, slices large enough for it): no MPI call
# of vred's from any other thread than the caller's, seen through PMPI_ wrappers.
set(t test_mpi_threads_funneled_${flavor})
add_executable(${t} threads_funneled.c)
target_link_libraries(${t} PRIVATE vred_mpi_${flavor} vred_mpi_deps_${flavor} ${CMAKE_DL_LIBS})
target_link_options(${t} PRIVATE "LINKER:--no-as-needed")
# Its PMPI_ wrappers must be in the dynamic symbol table for libvred-mpi.so to bind to them.
set_target_properties(${t} PROPERTIES ENABLE_EXPORTS ON)
add_test(NAME mpi_faults_${flavor}_threads_funneled COMMAND ${mpiexec} -np 2 $<TARGET_FILE:${t}>)
# 64 MiB slices make a 256 MiB region at 2 ranks: VRED_SHM_LIMIT lets it be made at that size
# (the default bound would shrink the slices below what the pool takes on).
set_tests_properties(mpi_faults_${flavor}_threads_funneled PROPERTIES
  ENVIRONMENT "VRED_THREADS=2;VRED_SHM_SLICE=67108864;VRED_SHM_LIMIT=1073741824")
# ... and structurally: the pool is libvred.so's, which imports no MPI symbol.
add_test(NAME mpi_faults_${flavor}_threads_no_mpi
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/threads_no_mpi.sh $<TARGET_FILE:vred>
          $<TARGET_FILE:vred_mpi_${flavor}>)
list(APPEND faults_names mpi_faults_${flavor}_threads_funneled mpi_faults_${flavor}_threads_no_mpi)

# The region's security from outside the job: imports, strace of the segments, unprivileged run.
add_test(NAME mpi_faults_${flavor}_security
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/security.sh ${mpiexec} --
          $<TARGET_FILE:test_mpi_shm_safety_${flavor}> $<TARGET_FILE:test_mpi_coll_${flavor}>
          $<TARGET_FILE:vred_mpi_${flavor}> $<TARGET_FILE:vred> $<TARGET_FILE:deny_cma>
          $<TARGET_FILE:test_mpi_coll_move_${flavor}>)
list(APPEND faults_names mpi_faults_${flavor}_security)

set_tests_properties(${faults_names} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS mpi_faults)
# Four parts, six MPI runs (two traced, two as nobody, one under deny_cma): up to 5 min alone
# on the busy 2-core VM.
set_tests_properties(mpi_faults_${flavor}_security PROPERTIES TIMEOUT 600)
