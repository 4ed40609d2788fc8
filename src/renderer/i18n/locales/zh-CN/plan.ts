import type en from '../en/plan';
import type { Catalogue } from '../../catalogue';

const zhCN: Catalogue<typeof en> = {
  steps: {
    userTurbovnc: {
      title: '将 TurboVNC {{version}} 解包到你的主目录',
      why: 'VNC 服务器就是你看到的虚拟桌面。它的发布包以你自己的身份、无需 root 解包（{{tool}}）到 {{prefix}}。',
    },
    userVirtualgl: {
      title: '将 VirtualGL {{version}} 解包到你的主目录',
      why: 'VirtualGL 通过其 EGL 后端让每个程序的 OpenGL 在服务器 GPU 上运行，不需要 3D X 服务器，也不需要管理员，只需能访问 GPU 的设备文件。它的发布包以你自己的身份解包到 {{prefix}}。',
    },
    userDepsDeb: {
      title: '获取 TurboVNC 和 VirtualGL 所需的库（以你的身份，来自发行版）',
      why: 'TurboVNC 的 X 服务器需要 X 库、XKB 键盘数据和 `xkbcomp`；VirtualGL 需要 `libturbojpeg` 和 GLU。服务器缺少的部分（{{packages}} 及其依赖）以你的身份用 `apt-get download` 从服务器自己的软件源下载，按发行版签名的软件包列表校验，然后解包到 {{prefix}}/deps。不会在系统范围内安装任何东西。',
    },
    userDepsRpm: {
      title: '获取 TurboVNC 和 VirtualGL 所需的库（以你的身份，来自发行版）',
      why: 'TurboVNC 的 X 服务器需要 X 库、XKB 键盘数据和 `xkbcomp`；VirtualGL 需要 `libturbojpeg` 和 GLU。服务器缺少的部分（{{packages}} 及其依赖）以你的身份用 `dnf download` 从服务器自己的软件仓库下载，按仓库元数据校验，然后解包到 {{prefix}}/deps。不会在系统范围内安装任何东西。',
    },
    userWm: {
      title: '将窗口管理器（Openbox）和终端（xterm）获取到你的主目录',
      why: '服务器上没有窗口管理器：没有它，桌面上的窗口没有标题栏，也无法移动或调整大小。Openbox 和 xterm 及其所需的库以你的身份从发行版的软件包获取，放到 {{prefix}}/wm。',
    },
    userEnv: {
      title: '让你的桌面使用这份安装（`vglrun` 包装脚本、环境、`current` 链接）',
      why: '写入 {{prefix}}/env.sh 和 {{prefix}}/bin/vglrun，后者会自行找到 VirtualGL 的库（可在任何终端中用完整路径运行，或在 gpu-desk 启动的桌面中直接运行 `vglrun`，那里该目录已在 PATH 中），最后用一次重命名把 {{base}}/current 指向这个版本。如果 /opt 中有管理员安装的版本，仍然优先使用它。',
    },
    userUninstall: {
      title: '删除你主目录中的安装',
      why: '删除 {{base}}（TurboVNC、VirtualGL 以及为它们获取的库），不删除其他任何东西。请先停止从它启动的桌面。',
    },
    glLibraries: {
      title: '安装 OpenGL 库',
      why: '3D 程序及其构建工具需要 GL、GLU、GLUT 和 GLEW 库；随之安装的 glxinfo 可用来检查渲染器。',
    },
    windowManagerXfce: {
      title: '安装轻量桌面（Xfce）',
      why: '没有窗口管理器，VNC 桌面上的窗口就没有标题栏，无法移动或调整大小，也没有启动程序的菜单。',
    },
    windowManagerOpenbox: {
      title: '安装极简窗口管理器（Openbox）',
      why: '没有窗口管理器，VNC 桌面上的窗口就没有标题栏，无法移动或调整大小，也没有启动程序的菜单。',
    },
    virtualgl: {
      title: '安装 VirtualGL {{version}}',
      why: 'VirtualGL 让每个程序的 OpenGL 在服务器 GPU 上运行，并把渲染好的画面交给 VNC 桌面，而不是把 GL 命令发到你的笔记本上用 CPU 渲染。',
    },
    virtualglEgl: {
      title: '将 VirtualGL 配置为 EGL 后端（无需 3D X 服务器）',
      why: 'NVIDIA 驱动 {{driver}} 把 GPU 作为 EGL 设备提供，因此 VirtualGL 无需 :0 上的 X 服务器、无需 nvidia-xconfig，也无需重启显示管理器即可渲染。此步骤会向 vglusers 组开放 GPU 设备，并把 {{user}} 加入该组。',
    },
    glxOldDriver: {
      title: '在 GPU 上配置无显示器的 3D X 服务器（GLX 后端）',
      why: '这里无法使用 EGL 后端（驱动 {{driver}} 低于 450 版），所以 VirtualGL 需要一个在 GPU 上运行、不接显示器的 :0 X 服务器。显示管理器会重启一次。',
    },
    glxNoCard: {
      title: '在 GPU 上配置无显示器的 3D X 服务器（GLX 后端）',
      why: '这里无法使用 EGL 后端（没有 /dev/dri/card 设备），所以 VirtualGL 需要一个在 GPU 上运行、不接显示器的 :0 X 服务器。显示管理器会重启一次。',
    },
    vncServer: {
      title: '安装 TurboVNC {{version}}（无法下载时改装发行版自带的 TigerVNC）',
      why: 'VNC 服务器就是你看到的虚拟桌面。TurboVNC 针对 3D 画面做了优化，并支持一次性密码；只有在无法下载 TurboVNC 时（而不是下载未通过校验时）才改用发行版自带的 TigerVNC。',
    },
    vncLocalhost: {
      title: '让 VNC 会话只监听本机',
      why: '对网络开放的 VNC 端口会招来密码猜测。这些设置让每个会话（即使是手动启动的）只接受来自服务器本机的连接——gpu-desk 通过 SSH 访问它。TurboVNC 还会拒绝无认证登录和 Unix 密码登录。',
    },
    ffmpegDeb: {
      title: '为视频模式安装 ffmpeg',
      why: '视频模式以 H.264 视频流发送桌面，同样画质下比 VNC 的 JPEG 图块小好几倍，因此在慢速网络上也能保持流畅。ffmpeg 在服务器上完成编码：有 GPU 编码器时用 GPU，否则用 CPU 上的 libx264。',
    },
    ffmpegRhel: {
      title: '为视频模式安装 ffmpeg',
      why: '视频模式以 H.264 视频流发送桌面，同样画质下比 VNC 的 JPEG 图块小好几倍，因此在慢速网络上也能保持流畅。ffmpeg 在服务器上完成编码：有 GPU 编码器时用 GPU，否则用 CPU 上的 libx264。RHEL 和 EPEL 都没有带 libx264 的 ffmpeg，所以这一步会添加依赖 EPEL 的 RPM Fusion（`rpmfusion-free`）软件源；`dnf` 会用 RPM Fusion 的签名密钥校验其软件包。',
    },
    vulkanMesa: {
      title: '安装 Vulkan（加载器、vulkaninfo 和 Mesa 的 Vulkan 驱动）',
      why: 'Isaac Sim、SAPIEN、Genesis 等仿真器用 Vulkan 绘图，而 VirtualGL 不转发 Vulkan：只要加载器找到 GPU 驱动的驱动文件（ICD），驱动自带的 Vulkan 就会在 GPU 上渲染并显示在 VNC 桌面里。没有 NVIDIA 驱动时，这一步安装 Mesa 的 Vulkan 驱动：支持 AMD 和 Intel GPU，以及在 CPU 上绘图的 lavapipe。完成后用 vulkaninfo 检查结果。',
    },
    vulkanNvidiaUbuntu: {
      title: '安装 Vulkan 和 NVIDIA 驱动的 Vulkan 库',
      why: 'Isaac Sim、SAPIEN、Genesis 等仿真器用 Vulkan 绘图，而 VirtualGL 不转发 Vulkan：只要加载器找到 GPU 驱动的驱动文件（ICD），驱动自带的 Vulkan 就会在 GPU 上渲染并显示在 VNC 桌面里。这一步安装与已装驱动同一分支（驱动 {{driver}}）的 libnvidia-gl 软件包，其中包含它的 Vulkan 驱动；不会更换驱动，如果驱动不是通过软件包安装的，这一步会停下并说明原因。完成后用 vulkaninfo 检查 GPU 是否列出。',
    },
    vulkanNvidiaDebian: {
      title: '安装 Vulkan 和 NVIDIA 驱动的 Vulkan 库',
      why: 'Isaac Sim、SAPIEN、Genesis 等仿真器用 Vulkan 绘图，而 VirtualGL 不转发 Vulkan：只要加载器找到 GPU 驱动的驱动文件（ICD），驱动自带的 Vulkan 就会在 GPU 上渲染并显示在 VNC 桌面里。这一步为已装驱动（{{driver}}）安装 Debian 的 nvidia-vulkan-icd；不会更换驱动，如果驱动不是通过 Debian 软件包安装的，这一步会停下并说明原因。完成后用 vulkaninfo 检查 GPU 是否列出。',
    },
    vulkanNvidiaRhel: {
      title: '安装 Vulkan 和 NVIDIA 驱动的 Vulkan 库',
      why: 'Isaac Sim、SAPIEN、Genesis 等仿真器用 Vulkan 绘图，而 VirtualGL 不转发 Vulkan：只要加载器找到 GPU 驱动的驱动文件（ICD），驱动自带的 Vulkan 就会在 GPU 上渲染并显示在 VNC 桌面里。这一步从驱动所在的软件源安装与驱动（{{driver}}）同一版本的 nvidia-driver-libs；不会更换驱动，如果驱动不是通过 NVIDIA 软件包安装的，这一步会停下并说明原因。完成后用 vulkaninfo 检查 GPU 是否列出。',
    },
    xclip: {
      title: '安装 xclip 以复制粘贴图片',
      why: '查看器通过 X 剪贴板、借助 xclip 在本机与远程桌面之间复制图片（绘图、截图）；文本复制粘贴无需它。已安装的 xsel 只能传送文本。',
    },
  },
  verify: {
    mirror: '安装前，下载的文件会与 {{mirror}}/SHA256SUMS 中为 {{asset}} 列出的 SHA-256 比对；不一致则停止此步骤并删除该文件。',
    mirrorHttp: '{{asset}} 及其 SHA256SUMS 都通过明文 http 从 {{mirror}} 下载：SHA-256 校验能发现损坏的文件，但无法防范服务器与镜像之间网络上的篡改者，因此该软件包视为未校验。',
    pinned: '安装前，下载的文件会与 gpu-desk 为 {{asset}} 固定的 SHA-256 比对；不一致则停止此步骤并删除该文件。',
    github: '安装前，下载的文件会与 GitHub 发布接口为 {{asset}} 报告的 SHA-256 摘要比对；不一致则停止此步骤并删除该文件。',
  },
  unverified: {
    allowed: '没有可比对的校验值时，会在未校验的情况下安装（你已为此计划允许这样做）。',
    stops: '没有可比对的校验值时，此步骤会停止。',
  },
  notes: {
    userInstall: '安装到你的主目录（{{prefix}}）；不需要管理员。约占 {{mb}} MB 磁盘空间。',
    userNoWmEpel: '服务器上没有窗口管理器，而 Openbox 来自只有管理员才能启用的 EPEL：桌面将是空白的（程序在它们请求的位置打开，窗口无法移动或调整大小）。',
    userNoWmChosen: '服务器上没有窗口管理器，而你选择了不安装：桌面将是空白的（程序在它们请求的位置打开，窗口无法移动或调整大小）。',
    userGlDriver: 'OpenGL 和 EGL 本身随管理员安装的 GPU 驱动提供；VirtualGL 通过它们进行渲染。',
    noGpu: '没有找到驱动正常的 GPU：将安装 VirtualGL，并在安装 GPU 驱动之前使用 Mesa 的软件 EGL 设备（在 CPU 上）渲染。请安装驱动并重启，然后重新检测以配置 GPU。',
    noBusId: 'nvidia-smi 没有报告 PCI 总线 ID，因此 nvidia-xconfig 会自行选择 GPU。',
    joinVglusers: '{{user}} 将加入 vglusers 组：之后请重新登录（gpu-desk 会自动重连），新的桌面才能使用 GPU。',
  },
};

export default zhCN;
