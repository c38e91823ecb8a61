# Sourced by the other scripts: makes sure wgpu will find a Vulkan adapter on Linux. When no
# Vulkan driver is installed (a machine without a GPU, CI), installs Mesa's lavapipe, a software
# Vulkan driver, from the distribution's packages.

# grep reads all of its input (no -q): under `set -o pipefail` an early exit would fail the
# pipeline through the writer's SIGPIPE.
have_vulkan_driver() {
    ldconfig -p 2>/dev/null | grep 'libvulkan\.so\.1' >/dev/null || return 1
    local icd
    for icd in /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json \
        /usr/local/share/vulkan/icd.d/*.json; do
        [ -e "$icd" ] && return 0
    done
    return 1
}

have_gl_driver() {
    ldconfig -p 2>/dev/null | grep 'libEGL_mesa\.so' >/dev/null &&
        ldconfig -p 2>/dev/null | grep 'libEGL\.so\.1' >/dev/null
}

apt_install() {
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

# Mesa's llvmpipe through EGL, for wgpu's OpenGL backend (WGPU_BACKEND=gl).
ensure_gl_driver() {
    if [ "$(uname -s)" = Linux ] && ! have_gl_driver; then
        echo "no EGL driver found: installing Mesa's llvmpipe (libegl-mesa0, libgl1-mesa-dri)" >&2
        apt_install libegl1 libegl-mesa0 libgl1-mesa-dri
    fi
}

if [ "$(uname -s)" = Linux ]; then
    if ! have_vulkan_driver; then
        echo "no Vulkan driver found: installing Mesa's lavapipe (mesa-vulkan-drivers)" >&2
        apt_install mesa-vulkan-drivers libvulkan1
    fi
    [ "${WGPU_BACKEND:-}" = gl ] && ensure_gl_driver
    # Tests and examples run on Vulkan here unless the caller picks another backend (e.g. gl).
    export WGPU_BACKEND="${WGPU_BACKEND:-vulkan}"
fi
if ! command -v cargo >/dev/null; then
    echo "cargo not found: install Rust from https://rustup.rs first" >&2
    exit 1
fi
