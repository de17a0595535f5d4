# protond_test(NAME SOURCES... LIBS ... LABELS ...): one GoogleTest binary, registered with CTest
# under the given labels (unit, integration, fuzz, gpu).
function(protond_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} protond_test_main GTest::gtest GTest::gmock)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  add_test(NAME ${name} COMMAND ${name})
  # 77: every test of the binary was skipped (common/testing/test_main.cc), shown as Skipped.
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT 300
    SKIP_RETURN_CODE 77 ENVIRONMENT "PROTOND_BIN_DIR=${CMAKE_BINARY_DIR}/bin")
endfunction()

# protond_fuzzer(NAME SOURCES... LIBS ...): a libFuzzer target (clang only); its corpus is the
# folder <name>_corpus beside the first source. CTest runs it briefly under the fuzz label.
function(protond_fuzzer name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  if(NOT PROTOND_FUZZERS)
    return()
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined
    -fno-sanitize-recover=undefined)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(${name} PRIVATE ${ARG_LIBS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  list(GET ARG_SOURCES 0 first)
  get_filename_component(dir ${first} DIRECTORY)
  # New inputs go to a folder in the build tree; the corpus in the source tree is only read.
  set(work ${CMAKE_CURRENT_BINARY_DIR}/${name}_new_inputs)
  file(MAKE_DIRECTORY ${work})
  add_test(NAME ${name} COMMAND ${name} -max_total_time=20 -rss_limit_mb=2048
    ${work} ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/${name}_corpus)
  set_tests_properties(${name} PROPERTIES LABELS fuzz TIMEOUT 120)
endfunction()
