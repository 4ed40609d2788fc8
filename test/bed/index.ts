export * from './sshd';
export * from './xvnc';
export * from './util';
