export * from './sshd';
export * from './xvnc';
export * from './util';
export * from './freshServer';
export * from './packageMirror';
export * from './desktop';
export * from './screen';
export * from './slurm';
