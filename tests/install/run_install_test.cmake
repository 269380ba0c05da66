# The install test (cmake -P, run by ctest): brings the pto libraries of the build tree up to date,
# installs the build tree into a fresh prefix, configures and builds tests/install/consumer against that
# prefix only (find_package(pto CONFIG REQUIRED)), and runs the consumer, which checks its own results.
# Inputs (-D): BUILD_DIR, PREFIX, CONSUMER_SOURCE, CONSUMER_BUILD, CXX_COMPILER, BUILD_TYPE, GENERATOR,
# SANITIZE_FLAGS (the sanitizer flags the libraries were built with, so the consumer links against them).
cmake_minimum_required(VERSION 3.25)

foreach(var BUILD_DIR PREFIX CONSUMER_SOURCE CONSUMER_BUILD CXX_COMPILER BUILD_TYPE GENERATOR)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "run_install_test.cmake: -D${var}=... is required")
    endif()
endforeach()

# step(<name> <command>...): runs one command, echoing it; stops the test with its output when it fails.
function(step name)
    list(JOIN ARGN " " command)
    message(STATUS "[install test] ${name}: ${command}")
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "[install test] ${name} failed (${rc}):\n${out}\n${err}")
    endif()
    set(step_output "${out}" PARENT_SCOPE)
endfunction()

# The libraries are normally built already (`make test` builds everything first); this is then a no-op
# that guards against installing stale archives when the test runs on its own.
step("build the libraries" ${CMAKE_COMMAND} --build ${BUILD_DIR}
     --target pto_runtime pto_model pto_tensormap pto_scope pto_static_graph)

file(REMOVE_RECURSE ${PREFIX} ${CONSUMER_BUILD})
step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX})

# Only the prefix: the consumer must not see the source tree or the build tree.
set(configure_args -S ${CONSUMER_SOURCE} -B ${CONSUMER_BUILD} -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${PREFIX} -DPTO_EXPECTED_PREFIX=${PREFIX} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
    -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
if(SANITIZE_FLAGS)
    list(APPEND configure_args "-DCMAKE_CXX_FLAGS=${SANITIZE_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${SANITIZE_FLAGS}")
endif()
step("configure the consumer" ${CMAKE_COMMAND} ${configure_args})
step("build the consumer" ${CMAKE_COMMAND} --build ${CONSUMER_BUILD})
step("run the consumer" ${CONSUMER_BUILD}/pto_consumer)
message(STATUS "[install test] consumer output:\n${step_output}")
