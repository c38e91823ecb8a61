# Sourced by the other scripts: makes sure wgpu will find a Vulkan adapter on Linux. When no
# Vulkan driver is installed (a machine without a GPU, CI), installs Mesa's lavapipe, a software
# Vulkan driver, from the distribution's packages.

have_vulkan_driver() {
    ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1' || return 1
    ls /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json /usr/local/share/vulkan/icd.d/*.json \
        2>/dev/null | grep -q .
}

if [ "$(uname -s)" = Linux ]; then
    if ! have_vulkan_driver; then
        echo "no Vulkan driver found: installing Mesa's lavapipe (mesa-vulkan-drivers)" >&2
        sudo=""
        [ "$(id -u)" -ne 0 ] && sudo=sudo
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq mesa-vulkan-drivers libvulkan1 >/dev/null
    fi
    # Tests and examples run on Vulkan here unless the caller picks another backend (e.g. gl).
    export WGPU_BACKEND="${WGPU_BACKEND:-vulkan}"
fi
if ! command -v cargo >/dev/null; then
    echo "cargo not found: install Rust from https://rustup.rs first" >&2
    exit 1
fi
