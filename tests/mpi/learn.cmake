# The learned selection (tests/mpi/learn.c, learn.sh): measured at first use, kept per machine
# in a private cache directory, read back, obeyed when edited, measured again on redo; results
# equal to the MPI's and the same pick on every rank. Included once per flavor from
# CMakeLists.txt (flavor, mpiexec). These are the only tests that run with learning on.
set(t test_mpi_learn_${flavor})
add_executable(${t} learn.c)
target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(${t} PRIVATE vred_mpi_${flavor} vred_mpi_deps_${flavor})
target_link_options(${t} PRIVATE "LINKER:--no-as-needed")
# 3 ranks (the same pick on every rank of an odd count) over Open MPI only: oversubscribed, MPICH
# busy-polls through the learning runs' batches, 113 s against Open MPI's 38 (AVX2 EPYC guest,
# 2026-11-29), and the picks are vred's own code whichever MPI is underneath.
set(learn_nps 2)
if(ompi)
  set(learn_nps 2 3)
endif()
foreach(np ${learn_nps})
  add_test(NAME mpi_learn_${flavor}_np${np}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/learn.sh ${np} ${mpiexec} -- $<TARGET_FILE:${t}>)
  set_tests_properties(mpi_learn_${flavor}_np${np} PROPERTIES TIMEOUT 300 LABELS mpi_learn)
endforeach()
