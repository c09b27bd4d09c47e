# Driven by tests/install/CMakeLists.txt (cmake -P). Installs BUILD_DIR to WORK/prefix, then uses
# that prefix, and only it, as a user would. Fails on the first thing that does not work.

function(step what)
  message(STATUS "install test: ${what}")
endfunction()

# Runs a command; fails the test, with its output, unless it exits 0. Output in OUT (optional).
function(run)
  cmake_parse_arguments(R "" "OUT;DIR" "" ${ARGN})
  execute_process(COMMAND ${R_UNPARSED_ARGUMENTS} WORKING_DIRECTORY "${R_DIR}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    list(JOIN R_UNPARSED_ARGUMENTS " " cmd)
    message(FATAL_ERROR "install test: failed (${rc}): ${cmd}\n${out}\n${err}")
  endif()
  if(R_OUT)
    string(STRIP "${out}" out)
    set(${R_OUT} "${out}" PARENT_SCOPE)
  endif()
endfunction()

function(must_exist)
  foreach(f ${ARGN})
    if(NOT EXISTS "${P}/${f}")
      message(FATAL_ERROR "install test: ${P}/${f} was not installed")
    endif()
  endforeach()
endfunction()

set(P "${WORK}/prefix")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# ---- 1. install -----------------------------------------------------------------------------
step("cmake --install ${BUILD_DIR} --prefix ${P}")
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${P}")
must_exist(${INCLUDEDIR}/vred.h ${LIBDIR}/libvred.so ${LIBDIR}/libvred.so.0
  ${CMAKEDIR}/vredConfig.cmake ${CMAKEDIR}/vredConfigVersion.cmake ${CMAKEDIR}/vredTargets.cmake
  ${PKGCONFIGDIR}/vred.pc ${BINDIR}/vred-info)
if(FLAVORS)
  must_exist(${INCLUDEDIR}/vred_mpi.h)
endif()
foreach(F ${FLAVORS})
  must_exist(${LIBDIR}/vred/${F}/libvred-mpi.so ${PKGCONFIGDIR}/vred-mpi-${F}.pc)
  if(EXISTS "${P}/${LIBDIR}/vred/${F}/vred-bench")
    must_exist(${BINDIR}/vred-bench-${F}) # the symlink resolves
    # Through the symlink, $ORIGIN must still find libvred-mpi.so (--help: no MPI_Init, no run).
    run("${P}/${BINDIR}/vred-bench-${F}" --help)
  endif()
endforeach()
run("${P}/${BINDIR}/vred-info" --kernels)

# Installed files must not point back into the build tree (the RPATHs are $ORIGIN-relative).
find_program(READELF readelf)
if(READELF)
  file(GLOB_RECURSE elves "${P}/${LIBDIR}/*.so" "${P}/${LIBDIR}/vred/*/vred-bench")
  foreach(e ${elves} "${P}/${BINDIR}/vred-info")
    run(${READELF} -d "${e}" OUT dyn)
    string(FIND "${dyn}" "${BUILD_DIR}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "install test: ${e} keeps a path into the build tree:\n${dyn}")
    endif()
  endforeach()
endif()

# How to launch one rank of the flavor's MPI, and how to preload a library there.
set(mpirun "")
if(FLAVOR AND LAUNCHER)
  execute_process(COMMAND ${LAUNCHER} --version OUTPUT_VARIABLE ver ERROR_VARIABLE ver)
  if(ver MATCHES "Open MPI|OpenRTE|prte|PRRTE")
    set(mpirun ${LAUNCHER} --allow-run-as-root -np 1)
    set(preload -x "LD_PRELOAD=${P}/${LIBDIR}/vred/${FLAVOR}/libvred-mpi.so")
  else()
    set(mpirun ${LAUNCHER} -np 1)
    set(preload -genv LD_PRELOAD "${P}/${LIBDIR}/vred/${FLAVOR}/libvred-mpi.so")
  endif()
endif()

# ---- 2. find_package(vred) ------------------------------------------------------------------
step("find_package(vred) consumer, CMAKE_PREFIX_PATH=${P}")
run(${CMAKE_COMMAND} -S "${CONSUMER}" -B "${WORK}/consumer" -G "${GENERATOR}"
  -DCMAKE_C_COMPILER=${CC} -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${P}"
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DVRED_CONSUMER_FLAVOR=${FLAVOR})
# Hermetic: the vred found is the one just installed, not one elsewhere on the machine.
file(STRINGS "${WORK}/consumer/CMakeCache.txt" vred_dir REGEX "^vred_DIR:")
if(NOT vred_dir MATCHES "=${P}/")
  message(FATAL_ERROR "install test: find_package(vred) found ${vred_dir}, not ${P}")
endif()
run(${CMAKE_COMMAND} --build "${WORK}/consumer")
run("${WORK}/consumer/consumer" OUT out)
message(STATUS "  ${out}")
if(FLAVOR)
  if(NOT EXISTS "${WORK}/consumer/mpi_consumer")
    message(FATAL_ERROR "install test: vred::mpi_${FLAVOR} was installed but not found")
  endif()
  if(mpirun)
    run(${mpirun} "${WORK}/consumer/mpi_consumer" OUT out)
    message(STATUS "  vred::mpi_${FLAVOR}: ${out}")
  endif()
endif()

# ---- 3. pkg-config --------------------------------------------------------------------------
if(NOT PKG_CONFIG)
  step("no pkg-config: the pkg-config consumers are skipped")
else()
  set(pcenv ${CMAKE_COMMAND} -E env "PKG_CONFIG_PATH=${P}/${PKGCONFIGDIR}")
  step("cc main.c $(pkg-config --cflags --libs vred)")
  run(${pcenv} ${PKG_CONFIG} --cflags --libs vred OUT flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run(${CC} "${CONSUMER}/main.c" ${flags} -o "${WORK}/pc_consumer")
  run(${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${P}/${LIBDIR}" "${WORK}/pc_consumer" OUT out)
  message(STATUS "  ${out}")
  if(FLAVOR)
    step("cc mpi_main.c $(pkg-config --cflags --libs vred-mpi-${FLAVOR})")
    run(${pcenv} ${PKG_CONFIG} --cflags --libs vred-mpi-${FLAVOR} OUT flags)
    separate_arguments(flags UNIX_COMMAND "${flags}")
    run(${CC} -DVRED_LINKED "${CONSUMER}/mpi_main.c" ${flags} -ldl -o "${WORK}/pc_mpi_consumer")
    if(mpirun)
      run(${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${P}/${LIBDIR}/vred/${FLAVOR}"
        ${mpirun} "${WORK}/pc_mpi_consumer" OUT out)
      message(STATUS "  vred-mpi-${FLAVOR}.pc: ${out}")
    endif()
  endif()
endif()

# ---- 4. LD_PRELOAD of the installed libvred-mpi.so into a plain MPI program -------------------
if(mpirun AND WRAPPER)
  step("${FLAVOR}: LD_PRELOAD=${P}/${LIBDIR}/vred/${FLAVOR}/libvred-mpi.so")
  run(${WRAPPER} "${CONSUMER}/mpi_main.c" -ldl -o "${WORK}/plain_mpi")
  run(${mpirun} ${preload} "${WORK}/plain_mpi" OUT out)
  message(STATUS "  preloaded: ${out}")
endif()
step("passed")
