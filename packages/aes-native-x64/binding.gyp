# Build from source with node-gyp, for x86-64 hosts without a prebuilt binary (darwin-x64, linux-x64 with
# musl). linux-x64 glibc uses prebuilds/, made by scripts/build-x64.mjs. The Node-API glue comes from
# @x/aes-native-addon. GCC or Clang only (the sources use their target attributes): Windows is not supported.
# On other architectures the addon builds with no code path, and the kernel reports itself unavailable.
{
  "targets": [
    {
      "target_name": "x-aes-native-x64",
      "sources": [
        "<!(node -p \"require('@x/aes-native-addon').addonSource\")",
        "src/native/aes_x64.c"
      ],
      "include_dirs": ["<!(node -p \"require('@x/aes-native-addon').include\")"],
      "defines": ["NAPI_VERSION=8"],
      "cflags_c": ["-std=c11", "-O3", "-fvisibility=hidden"],
      "xcode_settings": {
        "GCC_OPTIMIZATION_LEVEL": "3",
        "GCC_SYMBOLS_PRIVATE_EXTERN": "YES",
        "OTHER_CFLAGS": ["-std=c11"]
      }
    }
  ]
}
