# afmtGenerate.cmake: afmt-gen run on a project's own specs at build time,
# as nanopb_generate_cpp and flatcc's build integration do for theirs.
#
#   include(afmtGenerate)       # or find_package(afmt), which includes it
#   afmt_generate(TARGET reader SPECS formats/grid.json [OUTPUT_DIR dir])
#
# Each spec's C (<format>.c, <format>.h, named by the spec's "format") is
# written to OUTPUT_DIR (default: ${CMAKE_CURRENT_BINARY_DIR}/afmt-gen) by
# one afmt-gen run over all the SPECS, again whenever a spec or afmt-gen
# changes; the .c files join TARGET's sources and OUTPUT_DIR its include
# directories, so its code includes "<format>.h".  The generated code calls
# the runtime: link TARGET with an installed afmt (afmt::afmt or
# afmt::afmt_static) or with a vendored one (afmt_add_runtime below).
#
# afmt-gen is AFMT_GEN_EXECUTABLE: the installed one when afmt's package
# was found, else what find_program finds; set it (-DAFMT_GEN_EXECUTABLE=
# path/to/afmt-gen) to choose.  afmt_generate needs CMake 3.19
# (string(JSON)); including this file sets no policy of the project.
#
#   afmt_add_runtime(<name> SOURCE_DIR <afmt sources>)
#
# A static library <name> of a vendored runtime: every .c of
# SOURCE_DIR/runtime (the folder docs/VENDORING.md copies), compiled as
# C11, its folder on the include path of whatever links it.
if(NOT AFMT_GEN_EXECUTABLE)
  find_program(AFMT_GEN_EXECUTABLE afmt-gen)
endif()

function(afmt_generate)
  if(CMAKE_VERSION VERSION_LESS 3.19)
    message(FATAL_ERROR "afmt_generate needs CMake 3.19 or later (this is ${CMAKE_VERSION})")
  endif()
  cmake_parse_arguments(ARG "" "TARGET;OUTPUT_DIR" "SPECS" ${ARGN})
  if(NOT ARG_TARGET OR NOT ARG_SPECS)
    message(FATAL_ERROR "afmt_generate: give TARGET <target> and SPECS <spec.json>...")
  endif()
  if(NOT TARGET ${ARG_TARGET})
    message(FATAL_ERROR "afmt_generate: ${ARG_TARGET} is not a target (add_executable or add_library it first)")
  endif()
  if(NOT AFMT_GEN_EXECUTABLE)
    message(FATAL_ERROR "afmt_generate: no afmt-gen: set AFMT_GEN_EXECUTABLE, or find_package(afmt)")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/afmt-gen")
  endif()
  set(specs "")
  set(outputs "")
  set(sources "")
  foreach(spec IN LISTS ARG_SPECS)
    get_filename_component(spec "${spec}" ABSOLUTE)
    # the files are named by the spec's "format", known when configuring
    file(READ "${spec}" text)
    string(JSON format ERROR_VARIABLE why GET "${text}" format)
    if(why)
      message(FATAL_ERROR "afmt_generate: ${spec}: no \"format\" name: ${why}")
    endif()
    list(APPEND specs "${spec}")
    list(APPEND outputs "${ARG_OUTPUT_DIR}/${format}.c" "${ARG_OUTPUT_DIR}/${format}.h")
    list(APPEND sources "${ARG_OUTPUT_DIR}/${format}.c")
    # configure again when the spec changes (its name may have)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${spec}")
  endforeach()
  add_custom_command(
    OUTPUT ${outputs} "${ARG_OUTPUT_DIR}/afmt_formats.c"
    COMMAND "${AFMT_GEN_EXECUTABLE}" -o "${ARG_OUTPUT_DIR}" ${specs}
    DEPENDS ${specs} "${AFMT_GEN_EXECUTABLE}"
    COMMENT "afmt-gen: ${ARG_SPECS}"
    VERBATIM)
  target_sources(${ARG_TARGET} PRIVATE ${sources})
  target_include_directories(${ARG_TARGET} PRIVATE "${ARG_OUTPUT_DIR}")
endfunction()

function(afmt_add_runtime name)
  cmake_parse_arguments(ARG "" "SOURCE_DIR" "" ${ARGN})
  if(NOT ARG_SOURCE_DIR OR NOT EXISTS "${ARG_SOURCE_DIR}/runtime/afmt.h")
    message(FATAL_ERROR "afmt_add_runtime: SOURCE_DIR must hold afmt's runtime/ (runtime/afmt.h)")
  endif()
  file(GLOB runtime_sources CONFIGURE_DEPENDS "${ARG_SOURCE_DIR}/runtime/*/*.c")
  add_library(${name} STATIC ${runtime_sources})
  set_target_properties(${name} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  target_include_directories(${name} PUBLIC "${ARG_SOURCE_DIR}/runtime")
endfunction()
