# Faults, threads and the region's security (issue 6; docs/reliability.md), per MPI flavor.
# Included from CMakeLists.txt inside its per-flavor loop: flavor, launch, mpiexec, ompi are set.
# About 2 min for Open MPI and 1.5 min for MPICH on 2 cores.
set(faults_names "")

# Soak: mixed collectives of random kinds, types, roots, sizes and algorithms (soak_mix.c), every
# result checked, no growth in memory, mappings or descriptors over the second half. 10^6 calls
# (soak_mixed --soak-mixed 1000000, by hand) take ~7 min on Open MPI; CI runs 10^5 (3 ranks, ~40
# s). MPICH busy-polls (~2 ms a call on 2 ranks here): 10^4 on 2 ranks.
set(t test_mpi_soak_mixed_${flavor})
add_executable(${t} soak_mixed.c soak_mix.c)
target_link_libraries(${t} PRIVATE vred_mpi_${flavor} vred_mpi_deps_${flavor} Threads::Threads)
target_link_options(${t} PRIVATE "LINKER:--no-as-needed")
if(ompi)
  add_test(NAME mpi_faults_${flavor}_soak_mixed
    COMMAND ${mpiexec} -np 3 $<TARGET_FILE:${t}> --soak-mixed 50000)
else()
  add_test(NAME mpi_faults_${flavor}_soak_mixed
    COMMAND ${mpiexec} -np 2 $<TARGET_FILE:${t}> --soak-mixed 20000)
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

set_tests_properties(${faults_names} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS mpi_faults)
