import type en from '../en/forwards';
import type { Catalogue } from '../../catalogue';

const zhCN: Catalogue<typeof en> = {
  tab: '端口转发',
  heading: '端口转发',
  intro: '通过 SSH 访问服务器上的服务。每个转发只在本机（127.0.0.1）监听。',
  none: '此服务器没有保存的端口转发。可用“编辑端口转发”添加（例如 8888 端口的 Jupyter）。',
  edit: '编辑端口转发…',
  open: '打开端口转发',
  opening: '正在打开…',
  notOpen: '尚未打开。',
  remote: '转发到服务器上的 {{host}}:{{port}}',
  http: {
    checking: '正在检测…',
    yes: 'HTTP 有响应',
    no: 'HTTP 无响应',
  },
  openFailed: '转发打开失败：{{reason}}',
  checkAgain: '重新检测',
  openBrowser: '在浏览器中打开',
  close: '关闭',
  copy: '复制',
  copied: '已复制',
  copyAria: '复制 {{address}}',
};
export default zhCN;
