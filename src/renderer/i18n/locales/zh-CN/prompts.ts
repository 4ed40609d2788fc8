import type en from '../en/prompts';
import type { Catalogue } from '../../catalogue';

const zhCN: Catalogue<typeof en> = {
  hostKey: {
    title: '未知服务器：请核对指纹',
    first: '这是第一次连接 <strong>{{host}}</strong>{{where}}。请把下面的指纹与管理员提供的指纹核对（在服务器上运行：<code>{{command}}</code>）。',
    port: '（端口 {{port}}）',
    hop: '（跳板链中的第 {{hop}} 跳）',
    keyType: '密钥类型',
    fingerprint: '指纹',
    acceptOnce: '仅本次接受',
    acceptSave: '接受并保存',
  },
  passwordTitle: '{{user}}@{{host}} 的密码',
  password: '密码',
  passphraseTitle: '密钥口令',
  passphrase: '{{key}} 的口令',
  serverAsks: '服务器要求输入',
};
export default zhCN;
