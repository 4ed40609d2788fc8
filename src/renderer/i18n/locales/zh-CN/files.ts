import type en from '../en/files';
import type { Catalogue } from '../../catalogue';

const zhCN: Catalogue<typeof en> = {
  tab: '文件',
  heading: '服务器上的文件',
  dropHere: '将文件拖放到这里（或使用“上传…”），上传到 {{folder}}',
  dropOnViewer: '松开即可上传到服务器（~/Desktop；没有该文件夹时上传到主目录）',
  up: '上一级',
  upAria: '返回上一级 {{folder}}',
  reload: '刷新',
  uploadButton: '上传…',
  loading: '正在加载…',
  empty: '此文件夹为空。',
  truncated: '列表已截断：服务器列出的条目过多或耗时过长；这里显示前 {{count}} 个条目。',
  name: '名称',
  size: '大小',
  modified: '修改时间',
  folder: '文件夹',
  download: '下载',
  downloadAria: '下载 {{name}}',
  downloading: '正在下载 {{name}}…',
  saved: '已将 {{name}} 保存到 {{file}}',
  uploads: '上传',
  uploadingTo: '{{name}} → {{folder}}',
  progress: '已上传 {{done}}，共 {{total}}',
  cancel: '取消',
  cancelAria: '取消上传 {{name}}',
  state: {
    running: '正在上传',
    done: '已上传',
    cancelled: '已取消：服务器上没有留下任何文件',
    failed: '失败',
    skipped: '未上传：保留了服务器上的文件',
  },
  replace: {
    title: '替换 {{name}}？',
    text: '服务器上的 {{folder}} 中已有 {{name}}。替换将覆盖该文件。',
    keep: '保留服务器上的文件',
    replace: '替换',
  },
  dismiss: '关闭',
};
export default zhCN;
