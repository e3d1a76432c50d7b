# Which instruction-set levels this build compiles (KB_BUILD_<LEVEL>, read only by the
# dispatch registry, src/core/dispatch.h), and the flags for each kernel file. Kernel files
# are named by instruction set (reduce_avx2.c, reduce_neon.c, ...); each is compiled with its
# own target flags, and the registry picks a family's table at run time.
include(CheckCCompilerFlag)

set(KB_ARCH ${CMAKE_SYSTEM_PROCESSOR})
set(KB_SIMD_DEFINES "")
set(KB_FLAGS_avx2 "")
set(KB_FLAGS_avx512 "")
set(KB_FLAGS_neon "")
set(KB_FLAGS_sve "")

if(KB_ARCH MATCHES "x86_64|AMD64")
  set(KB_ARCH x86_64)
  check_c_compiler_flag("-mavx2 -mfma" KB_CC_AVX2)
  check_c_compiler_flag("-mavx512f -mavx512bw -mavx512dq -mavx512vl" KB_CC_AVX512)
  if(KB_CC_AVX2)
    set(KB_FLAGS_avx2 -mavx2 -mfma -mf16c)
    list(APPEND KB_SIMD_DEFINES KB_BUILD_AVX2)
  endif()
  if(KB_CC_AVX512)
    set(KB_FLAGS_avx512 -mavx512f -mavx512bw -mavx512dq -mavx512vl -mavx2 -mfma -mf16c)
    list(APPEND KB_SIMD_DEFINES KB_BUILD_AVX512)
  endif()
elseif(KB_ARCH MATCHES "aarch64|arm64")
  set(KB_ARCH aarch64)
  list(APPEND KB_SIMD_DEFINES KB_BUILD_NEON)
  # No kernel file is SVE's yet: the registry's fallback rule runs the NEON tables at the SVE
  # level, and _sve.c files get these flags once they exist.
  check_c_compiler_flag("-march=armv8.2-a+sve" KB_CC_SVE)
  if(KB_CC_SVE)
    set(KB_FLAGS_sve -march=armv8.2-a+sve)
    list(APPEND KB_SIMD_DEFINES KB_BUILD_SVE)
  endif()
endif()

# Keeps the kernel files this build can compile and sets their flags.
function(kb_select_simd_sources out)
  set(kept "")
  foreach(src ${ARGN})
    get_filename_component(name ${src} NAME_WE)
    if(name MATCHES "_(avx2|avx512|neon|sve)$")
      set(isa ${CMAKE_MATCH_1})
      string(TOUPPER ${isa} ISA)
      if(NOT "KB_BUILD_${ISA}" IN_LIST KB_SIMD_DEFINES)
        continue()
      endif()
      set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "${KB_FLAGS_${isa}}")
    endif()
    list(APPEND kept ${src})
  endforeach()
  set(${out} ${kept} PARENT_SCOPE)
endfunction()
