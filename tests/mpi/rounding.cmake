# Floating-point data that rounds (tests/mpi/rounding.c, issue 15 item 1): f32/f64 inputs of
# mixed magnitudes, NaN, +-inf, -0 and denormals through every reduction collective, every vred
# algorithm forced in turn and "auto", on 2-5 ranks: the same bytes on every rank and on a
# repeated call, in place equal to separate buffers, SUM/PROD within the rounding bound of the
# exact result, NaN for SUM/PROD where an input has one, MAX/MIN by the documented rule. And a
# run with a corrupted result that must fail (the checks can fail).
# Included once per flavor from CMakeLists.txt (flavor, mpiexec, ompi).
set(t test_mpi_rounding_${flavor})
add_executable(${t} rounding.c)
target_link_libraries(${t} PRIVATE vred_mpi_${flavor} vred_mpi_deps_${flavor} m)
target_link_options(${t} PRIVATE "LINKER:--no-as-needed")
set(exe $<TARGET_FILE:${t}>)
# MPICH 4.0 busy-polls: oversubscribed on 2 cores a case takes 5-10x Open MPI's time (all of
# them: ~60 s on 3 ranks, ~180 s on 5), so its runs on 4 and 5 ranks take every 3rd and 5th case
# (at different phases); its 3-rank run covers every case in two halves side by side
# (vred_sharded_test). Open MPI's runs on 2 and 3 ranks and MPICH's on 2 run every case; Open
# MPI's on 4 and 5 ranks complementary halves (36-38 s each whole in the CI of 2026-12-06, whose
# whole `make test` took 43 min on a slow day of the Xeon guest).
set(names "")
foreach(np 2 3 4 5)
  set(sample "")
  if(NOT ompi AND np EQUAL 3)
    vred_sharded_test(mpi_rounding_${flavor}_np3 2 ${mpiexec} -np 3 ${exe})
    list(APPEND names ${VRED_SHARDED_NAMES})
    continue()
  elseif(NOT ompi AND np EQUAL 4)
    set(sample --sample=3:1)
  elseif(NOT ompi AND np EQUAL 5)
    set(sample --sample=5:2)
  elseif(np EQUAL 4)
    set(sample --sample=2:0)
  elseif(np EQUAL 5)
    set(sample --sample=2:1)
  endif()
  add_test(NAME mpi_rounding_${flavor}_np${np} COMMAND ${mpiexec} -np ${np} ${exe} ${sample})
  list(APPEND names mpi_rounding_${flavor}_np${np})
endforeach()
add_test(NAME mpi_rounding_${flavor}_inject
  COMMAND ${mpiexec} -np 3 ${exe} --inject-fault --only=allreduce --alg=ring)
set_tests_properties(mpi_rounding_${flavor}_inject PROPERTIES
  PASS_REGULAR_EXPRESSION "FAIL rank 0: allreduce alg=ring [^\n]*ranks got different bytes")
list(APPEND names mpi_rounding_${flavor}_inject)
# The cma allreduce with uneven blocks (VRED_CMA_BALANCE=ends: a ninth, seven ninths, a ninth):
# rounding data still gives the same bytes on every rank, on a repeat and in place.
add_test(NAME mpi_rounding_${flavor}_np3_balance_ends
  COMMAND ${mpiexec} -np 3 ${exe} --only=allreduce --alg=cma)
set_tests_properties(mpi_rounding_${flavor}_np3_balance_ends PROPERTIES
  ENVIRONMENT "VRED_CMA_BALANCE=ends")
list(APPEND names mpi_rounding_${flavor}_np3_balance_ends)
set_tests_properties(${names} PROPERTIES TIMEOUT 240 SKIP_RETURN_CODE 77 LABELS mpi_coll)
