# The install test (cmake -P, run by ctest): brings the pto libraries of the build tree up to date,
# installs the build tree into a fresh prefix, configures and builds tests/install/consumer against that
# prefix only (find_package(pto CONFIG REQUIRED)), and runs the consumer, which checks its own results.
# With the bench (WITH_BENCH), it also runs the installed pto-bench, and the consumer's own benchmark
# (diamond_bench, a workload registered with pto::bench) with --json, and checks that report here.
# Inputs (-D): BUILD_DIR, PREFIX, CONSUMER_SOURCE, CONSUMER_BUILD, CXX_COMPILER, BUILD_TYPE, GENERATOR,
# BUILD_TYPE_FLAGS (the build's flags for BUILD_TYPE, e.g. the sanitizer builds' -O1 -g1), SANITIZE_FLAGS
# (the sanitizer flags the libraries were built with, so the consumer links against them),
# WITH_BENCH (whether the build tree has the bench).
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
set(library_targets pto_runtime pto_model pto_tensormap pto_scope pto_static_graph)
if(WITH_BENCH)
    list(APPEND library_targets pto_bench pto-bench)
endif()
step("build the libraries" ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${library_targets})

file(REMOVE_RECURSE ${PREFIX} ${CONSUMER_BUILD})
step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX})

# Only the prefix: the consumer must not see the source tree or the build tree.
set(configure_args -S ${CONSUMER_SOURCE} -B ${CONSUMER_BUILD} -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${PREFIX} -DPTO_EXPECTED_PREFIX=${PREFIX} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
    -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DPTO_EXPECT_BENCH=${WITH_BENCH})
if(BUILD_TYPE AND BUILD_TYPE_FLAGS)
    string(TOUPPER "${BUILD_TYPE}" build_type_upper)
    list(APPEND configure_args "-DCMAKE_CXX_FLAGS_${build_type_upper}=${BUILD_TYPE_FLAGS}")
endif()
if(SANITIZE_FLAGS)
    list(APPEND configure_args "-DCMAKE_CXX_FLAGS=${SANITIZE_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${SANITIZE_FLAGS}")
endif()
step("configure the consumer" ${CMAKE_COMMAND} ${configure_args})
step("build the consumer" ${CMAKE_COMMAND} --build ${CONSUMER_BUILD} --parallel 2)
step("run the consumer" ${CONSUMER_BUILD}/pto_consumer)
message(STATUS "[install test] consumer output:\n${step_output}")

if(NOT WITH_BENCH)
    return()
endif()

# expect(<condition text> <actual> <expected>): stops the test naming what differs.
function(expect what actual expected)
    if(NOT "${actual}" STREQUAL "${expected}")
        message(FATAL_ERROR "[install test] ${what}: got '${actual}', expected '${expected}'")
    endif()
endfunction()

step("run the installed pto-bench" ${PREFIX}/bin/pto-bench --list --case chain)
expect("pto-bench --list --case chain" "${step_output}" [[chain/manual: a 2048-task chain, one edge per task: dynamic submission with explicit edges (PTO2_SCOPE(MANUAL))
chain/tensormap: a 2048-task chain, one edge per task: dynamic submission with edges discovered by the tensormap
]])

# The consumer's workload through the bench entry point: ours and both peers for each of its two schemes,
# each with the counts of 16 diamonds (4 tasks and 4 edges each) and the model's prediction for ours.
set(report ${CONSUMER_BUILD}/diamonds.json)
step("run the consumer's benchmark" ${CONSUMER_BUILD}/diamond_bench --reps 3 --warmup 1 --peers --json ${report})
file(READ ${report} json)
string(JSON schema GET "${json}" schema)
expect("schema" "${schema}" "pto-bench/1")
string(JSON results LENGTH "${json}" results)
expect("results" "${results}" 6)
set(ours "")
math(EXPR last "${results} - 1")
foreach(i RANGE ${last})
    string(JSON result GET "${json}" results ${i})
    string(JSON case GET "${result}" case)
    string(JSON tasks GET "${result}" tasks)
    string(JSON edges GET "${result}" edges)
    string(JSON diamonds GET "${result}" sizes diamonds)
    string(JSON mode GET "${result}" mode)
    string(JSON peer_type TYPE "${result}" peer)
    expect("results[${i}].case" "${case}" "diamonds")
    expect("results[${i}].tasks" "${tasks}" 64)
    expect("results[${i}].edges" "${edges}" 64)
    expect("results[${i}].sizes.diamonds" "${diamonds}" 16)
    if(peer_type STREQUAL "NULL")
        list(APPEND ours ${mode})
        string(JSON makespan GET "${result}" sim makespan_us)
        if(NOT makespan GREATER 0)
            message(FATAL_ERROR "[install test] results[${i}]: no positive sim.makespan_us (${makespan})")
        endif()
    endif()
endforeach()
expect("our results' modes" "${ours}" "manual;tensormap")

# The compute executor runs the consumer's CPU kernels; its verify() must find every diamond right.
set(report ${CONSUMER_BUILD}/diamonds-compute.json)
step("run the consumer's benchmark on the compute executor" ${CONSUMER_BUILD}/diamond_bench --executor compute
     --reps 2 --warmup 0 --no-sim --json ${report})
file(READ ${report} json)
foreach(i 0 1)
    string(JSON golden GET "${json}" results ${i} golden)
    expect("compute results[${i}].golden" "${golden}" "match")
endforeach()
