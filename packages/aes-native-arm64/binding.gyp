# Build from source with node-gyp, for arm64 hosts without a prebuilt binary (darwin-arm64, linux-arm64
# with musl; Windows is not supported: the sources use GCC/Clang extensions). linux-arm64 glibc uses
# prebuilds/, made by scripts/build-arm64.mjs. The Node-API glue comes from @x/aes-native-addon.
# On other architectures the addon builds with no code path, and the kernel reports itself unavailable.
{
  "targets": [
    {
      "target_name": "x-aes-native-arm64",
      "sources": [
        "<!(node -p \"require('@x/aes-native-addon').addonSource\")",
        "src/native/aes_arm64.c"
      ],
      "include_dirs": ["<!(node -p \"require('@x/aes-native-addon').include\")"],
      "defines": ["NAPI_VERSION=8"],
      "cflags_c": ["-std=c11", "-O3", "-fvisibility=hidden"],
      "conditions": [
        ["target_arch=='arm64' and OS!='mac' and OS!='win'", {
          "cflags_c": ["-march=armv8-a+crypto"]
        }],
        ["target_arch=='arm64' and OS=='mac'", {
          "xcode_settings": {
            "GCC_OPTIMIZATION_LEVEL": "3",
            "GCC_SYMBOLS_PRIVATE_EXTERN": "YES",
            "OTHER_CFLAGS": ["-std=c11", "-march=armv8-a+crypto"]
          }
        }]
      ]
    }
  ]
}
