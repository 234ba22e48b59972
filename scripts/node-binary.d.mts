export declare const SUPPORTED_NODE_MAJORS: readonly string[];
export declare function nodeBinary(root: string, major: string, log?: (line: string) => void): string;
